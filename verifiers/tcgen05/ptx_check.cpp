#include "verifiers/tcgen05/ptx_check.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "verifiers/tcgen05/cp.h"
#include "verifiers/tcgen05/idesc.h"
#include "verifiers/tcgen05/kind_word.h"
#include "verifiers/tcgen05/tmem_alloc.h"

namespace ptxsim::verifiers::tcgen05 {

namespace {

struct Function {
  bool entry = true;
  std::vector<Instr> instrs;
  bool has_labels = false;
  int close_line = 0;
};

bool has_token(const std::string& text, const char* tok) {
  std::string t = text;
  for (char& c : t)
    if (c == '(' || c == ',') c = ' ';
  std::istringstream in(t);
  std::string w;
  while (in >> w)
    if (w == tok) return true;
  return false;
}

// The MMA the qualifiers describe; nullopt when kind or cta_group is missing or unknown.
std::optional<MmaDescription> describe_mma(const Instr& in, const std::optional<req::Target>& target) {
  MmaDescription m;
  auto kind = kind_from_name(in.qualifier("kind"));
  std::string cg = in.qualifier("cta_group");
  if (!kind || (cg != "1" && cg != "2")) return std::nullopt;
  m.kind = *kind;
  m.cta_group = cg == "1" ? 1 : 2;
  m.weight_stationary = in.has("ws");
  m.sparse = in.has("sp");
  m.block_scale = in.has("block_scale");
  m.ashift = in.has("ashift");
  std::string sv = in.qualifier("scale_vec");
  if (sv == "1X")
    m.scale_vec = ScaleVec::x1;
  else if (sv == "2X")
    m.scale_vec = ScaleVec::x2;
  else if (sv == "4X")
    m.scale_vec = ScaleVec::x4;
  else if (in.has("block16"))
    m.scale_vec = ScaleVec::x4;
  else if (in.has("block32"))
    m.scale_vec = m.kind == MmaKind::mxf8f6f4 ? ScaleVec::x1 : ScaleVec::x2;
  else if (m.kind == MmaKind::mxf4 && m.block_scale)
    m.scale_vec = ScaleVec::x2;  // PTX: mxf4 defaults to .block32
  for (const std::string& p : in.parts)
    if (p.rfind("collector::a::", 0) == 0) {
      std::string op = p.substr(14);
      if (op == "fill")
        m.collector_a = CollectorA::fill;
      else if (op == "use")
        m.collector_a = CollectorA::use;
      else if (op == "lastuse")
        m.collector_a = CollectorA::lastuse;
    }
  // scale-input-d: an operand after enable-input-d (not in the block-scale or .ws forms).
  if (!m.weight_stationary && !m.block_scale) {
    size_t i = (m.sparse ? 4 : 3) + 1;                                                       // after idesc
    if (i < in.operands.size() && !in.operands[i].empty() && in.operands[i][0] == '{') ++i;  // disable-output-lane
    m.scale_input_acc = i + 1 < in.operands.size();
  }
  if (target) {
    m.target = *target;
    m.arch_conditional = target->suffix == 'a' || target->suffix == 'f';
  }
  return m;
}

void check_instruction(const Instr& in, const std::optional<req::Target>& target,
                       const std::map<std::string, int64_t>& constants, std::vector<PtxDiagnostic>& out) {
  if (in.parts.size() < 2 || in.parts[0] != "tcgen05") return;
  const std::string& sub = in.parts[1];
  if (target && !req::is_conditional_sm100_plus(*target)) {
    std::string d = sub == "mma"                ? std::string(kMmaTargetDiagnostic)
                    : sub.rfind("wait", 0) == 0 ? std::string(kWaitTargetDiagnostic)
                                                : tcgen05_target_diagnostic("tcgen05." + sub);
    out.push_back({in.line, d});
    return;
  }
  if (sub == "mma") {
    auto m = describe_mma(in, target);
    if (!m) return;
    if (auto d = check_kind_ladder(*m)) {
      out.push_back({in.line, *d});
      return;
    }
    if (auto d = check_mma_backend(*m)) {
      out.push_back({in.line, *d});
      return;
    }
    const size_t idesc_at = m->sparse ? 4 : 3;
    if (in.operands.size() <= idesc_at) return;
    std::optional<int64_t> v = parse_int_literal(in.operands[idesc_at]);
    if (!v) {
      auto it = constants.find(in.operands[idesc_at]);
      if (it != constants.end()) v = it->second;
    }
    if (!v) return;
    IdescContext ctx;
    ctx.kind = m->kind;
    ctx.cta_group = m->cta_group;
    ctx.sparse = m->sparse;
    ctx.ws = m->weight_stationary;
    ctx.target = m->target;
    if (auto d = check_idesc(static_cast<uint32_t>(*v), ctx)) out.push_back({in.line, *d});
    return;
  }
  if (sub == "cp") {
    std::optional<CpShape> shape;
    CpMulticast mc = CpMulticast::none;
    for (size_t k = 2; k < in.parts.size(); ++k) {
      if (auto s = cp_shape_from_name(in.parts[k])) shape = s;
      if (auto c = cp_multicast_from_name(in.parts[k])) mc = *c;
    }
    if (!shape) return;
    if (auto d = check_cp_pairing(*shape, mc)) out.push_back({in.line, *d});
  }
}

void check_function(const Function& f, const std::optional<req::Target>& target, std::vector<PtxDiagnostic>& out) {
  // Registers written exactly once, by a mov of an immediate.
  std::map<std::string, int> writes;
  std::map<std::string, int64_t> movs, constants;
  for (const Instr& in : f.instrs) {
    std::string d = destination_register(in);
    if (d.empty()) continue;
    ++writes[d];
    if (in.parts[0] == "mov" && in.operands.size() == 2)
      if (auto v = parse_int_literal(in.operands[1])) movs[d] = *v;
  }
  for (const auto& [reg, v] : movs)
    if (writes[reg] == 1) constants[reg] = v;

  for (const Instr& in : f.instrs) check_instruction(in, target, constants, out);

  std::vector<StreamOp> ops;
  for (const Instr& in : f.instrs) ops.push_back({in.line, in, {}});
  StreamFacts facts;
  std::vector<TmemEvent> events = tmem_events_from_ops(ops, &facts);
  LifecycleOptions opt;
  opt.closed_world = false;
  if (facts.straight_line && !f.has_labels) {
    opt.kernel_exit = false;  // the exit comes as an event
    if (!f.entry)
      events.erase(
          std::remove_if(events.begin(), events.end(), [](const TmemEvent& e) { return e.kind == TmemEvent::Exit; }),
          events.end());
    else {
      TmemEvent e;
      e.kind = TmemEvent::Exit;
      e.pos = f.close_line ? f.close_line : (f.instrs.empty() ? 0 : f.instrs.back().line);
      events.push_back(e);
    }
  } else {
    // Control flow: only the order-free rule (one .cta_group) applies.
    for (TmemEvent& e : events) e.kind = TmemEvent::Other;
    opt.kernel_exit = false;
  }
  for (const LifecycleDiagnostic& d : check_lifecycle(events, opt)) out.push_back({d.pos, d.message});
}

}  // namespace

std::vector<PtxDiagnostic> check_tcgen05_ptx(const std::vector<std::pair<int, std::string>>& lines,
                                             const PtxCheckOptions& opt) {
  std::vector<SourceLine> src;
  src.reserve(lines.size());
  for (const auto& [line, text] : lines) src.push_back({line, text});
  std::vector<Statement> stmts = split_statements(src);
  std::optional<req::Target> target;
  std::vector<Function> funcs;
  Function bare;
  bool bare_used = false;
  int depth = 0;
  std::string header;
  for (const Statement& s : stmts) {
    switch (s.kind) {
      case Statement::Directive:
        if (depth == 0) {
          if (s.text.rfind(".target", 0) == 0 && !target) {
            std::string rest = trim(s.text.substr(7));
            size_t e = 0;
            while (e < rest.size() && rest[e] != ',' && rest[e] != ' ' && rest[e] != '\t') ++e;
            target = req::parse_target(rest.substr(0, e));
          } else if (has_token(s.text, ".entry") || has_token(s.text, ".func")) {
            header = s.text;
          }
        }
        break;
      case Statement::BlockOpen:
        if (depth++ == 0) {
          funcs.emplace_back();
          funcs.back().entry = header.empty() || has_token(header, ".entry");
          header.clear();
        }
        break;
      case Statement::BlockClose:
        if (depth > 0 && --depth == 0) funcs.back().close_line = s.line;
        break;
      case Statement::Label:
        if (depth > 0)
          funcs.back().has_labels = true;
        else
          bare.has_labels = true;
        break;
      case Statement::Instruction: {
        auto in = parse_instruction(s.text, s.line);
        if (!in) break;
        if (depth > 0)
          funcs.back().instrs.push_back(std::move(*in));
        else {
          bare.instrs.push_back(std::move(*in));
          bare_used = true;
        }
        break;
      }
    }
  }
  if (!target && !opt.target.empty()) target = req::parse_target(opt.target);

  std::vector<PtxDiagnostic> out;
  if (bare_used) check_function(bare, target, out);
  for (const Function& f : funcs) check_function(f, target, out);
  std::stable_sort(out.begin(), out.end(),
                   [](const PtxDiagnostic& a, const PtxDiagnostic& b) { return a.line < b.line; });
  return out;
}

std::vector<std::string> check_tcgen05_ptx(const std::string& file,
                                           const std::vector<std::pair<int, std::string>>& lines,
                                           const PtxCheckOptions& opt) {
  std::vector<std::string> out;
  for (const PtxDiagnostic& d : check_tcgen05_ptx(lines, opt))
    out.push_back(file + ":" + std::to_string(d.line) + ": error: " + d.message);
  return out;
}

}  // namespace ptxsim::verifiers::tcgen05
