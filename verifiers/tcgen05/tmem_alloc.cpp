#include "verifiers/tcgen05/tmem_alloc.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "verifiers/tcgen05/request.h"

namespace ptxsim::verifiers::tcgen05 {

const char* const kTmemOutOfResource = "allocated tmem out of resource: ";
const char* const kTmemNoScratch = "failed to find scratch smem to allocate tmem";
const char* const kTmemInitFailed = "failed to init tmem";
const char* const kRelinquishMissing = "tcgen05.relinquish_alloc_permit must be issued before the kernel exits";

namespace {

std::string columns_text(const std::optional<int64_t>& c) {
  return c ? std::to_string(*c) + " columns" : std::string("an unknown number of columns");
}

unsigned parse_cta_group(const Instr& in) {
  std::string q = in.qualifier("cta_group");
  if (q == "1") return 1;
  if (q == "2") return 2;
  return 0;
}

bool is_register(const std::string& s) { return !s.empty() && s[0] == '%'; }

}  // namespace

std::vector<TmemEvent> tmem_events_from_ops(const std::vector<StreamOp>& ops, StreamFacts* facts) {
  std::vector<TmemEvent> ev;
  std::map<std::string, std::string> bound;    // handle name -> allocation key
  std::map<std::string, std::string> scratch;  // scratch address -> allocation key
  std::map<std::string, std::string> alias;    // register -> the shared symbol a mov put in it
  // An address key with a register that holds a symbol's address spelled as the symbol.
  auto norm = [&](const std::string& key) {
    size_t e = 0;
    while (e < key.size() && key[e] != '+' && key[e] != '-') ++e;
    auto it = alias.find(key.substr(0, e));
    return it == alias.end() ? key : it->second + key.substr(e);
  };
  std::vector<std::pair<size_t, std::pair<std::string, std::string>>> bindings;  // (event index, (name, key))
  int nalloc = 0;
  StreamFacts local;
  StreamFacts& f = facts ? *facts : local;

  auto bind = [&](const std::string& name, const std::string& key) {
    bound[name] = key;
    alias.erase(name);
    bindings.push_back({ev.size(), {name, key}});
  };
  auto event = [](TmemEvent::Kind kind, int pos, const std::string& inst, unsigned cg) {
    TmemEvent e;
    e.kind = kind;
    e.pos = pos;
    e.inst = inst;
    e.cta_group = cg;
    return e;
  };
  auto alloc_event = [&](int pos, unsigned cg, std::optional<int64_t> columns) {
    TmemEvent e = event(TmemEvent::Alloc, pos, "tcgen05.alloc", cg);
    e.key = "alloc#" + std::to_string(++nalloc);
    e.columns = columns;
    return e;
  };
  auto handle_event = [&](TmemEvent::Kind kind, int pos, const std::string& inst, const std::string& name,
                          unsigned cg) {
    TmemEvent e = event(kind, pos, inst, cg);
    e.name = name;
    auto it = bound.find(name);
    if (it != bound.end()) e.key = it->second;
    return e;
  };

  for (const StreamOp& op : ops) {
    if (!op.instr) {
      const StructuredOp& s = op.structured;
      if (s.op == "alloc") {
        TmemEvent e = alloc_event(op.pos, s.cta_group, s.columns);
        e.name = s.handle;
        e.has_scratch = s.has_scratch;
        if (!s.scratch.empty()) scratch[s.scratch] = e.key;
        if (!s.handle.empty()) bind(s.handle, e.key);
        ev.push_back(e);
      } else if (s.op == "dealloc") {
        TmemEvent e = handle_event(TmemEvent::Dealloc, op.pos, "tcgen05.dealloc", s.handle, s.cta_group);
        e.columns = s.columns;
        ev.push_back(e);
      } else if (s.op == "relinquish") {
        ev.push_back(event(TmemEvent::Relinquish, op.pos, "tcgen05.relinquish_alloc_permit", s.cta_group));
      } else if (s.op == "exit") {
        ev.push_back(event(TmemEvent::Exit, op.pos, "", 0));
      } else {  // use
        ev.push_back(handle_event(TmemEvent::Use, op.pos, s.inst, s.handle, s.cta_group));
      }
      continue;
    }

    const Instr& in = *op.instr;
    if (in.parts.empty()) continue;
    const std::string& root = in.parts[0];
    if (root == "tcgen05" && in.parts.size() >= 2) {
      const std::string& sub = in.parts[1];
      const unsigned cg = parse_cta_group(in);
      const std::string inst = "tcgen05." + sub;
      if (sub == "alloc") {
        TmemEvent e =
            alloc_event(op.pos, cg, in.operands.size() >= 2 ? parse_int_literal(in.operands[1]) : std::nullopt);
        std::string skey = in.operands.empty() ? "" : norm(address_key(in.operands[0]));
        e.has_scratch = !skey.empty();
        e.name = skey;
        if (!skey.empty()) scratch[skey] = e.key;
        ev.push_back(e);
      } else if (sub == "dealloc") {
        std::string name;
        if (!in.operands.empty()) {
          name = address_base(in.operands[0]);
          if (name.empty()) name = trim(in.operands[0]);
        }
        TmemEvent e = handle_event(TmemEvent::Dealloc, op.pos, inst, name, cg);
        if (in.operands.size() >= 2) e.columns = parse_int_literal(in.operands[1]);
        ev.push_back(e);
      } else if (sub == "relinquish_alloc_permit") {
        ev.push_back(event(TmemEvent::Relinquish, op.pos, inst, cg));
      } else if (sub == "mma" || sub == "ld" || sub == "st" || sub == "cp" || sub == "shift") {
        std::set<std::string> seen;
        bool any = false;
        for (const std::string& o : in.operands) {
          std::string base = address_base(o);
          if (base.empty() || !seen.insert(base).second) continue;
          TmemEvent e = handle_event(TmemEvent::Use, op.pos, inst, base, cg);
          if (any) e.cta_group = 0;  // one cta_group observation per instruction
          any = true;
          ev.push_back(e);
        }
        if (!any && cg) ev.push_back(event(TmemEvent::Other, op.pos, inst, cg));
      } else if (cg) {  // commit, wait.cta_group (the seed's form), ...
        ev.push_back(event(TmemEvent::Other, op.pos, inst, cg));
      }
      continue;
    }
    if (root == "ret" || root == "exit") {
      if (!in.guard.empty()) {
        f.straight_line = false;
        continue;
      }
      ev.push_back(event(TmemEvent::Exit, op.pos, "", 0));
      continue;
    }
    if (root == "bra" || root == "brx") {
      f.straight_line = false;
      continue;
    }
    if (root == "ld" && in.operands.size() >= 2 && is_register(in.operands[0]) &&
        (in.has("shared") || in.has("shared::cta"))) {
      auto it = scratch.find(norm(address_key(in.operands[1])));
      if (it != scratch.end()) {
        bind(in.operands[0], it->second);
        continue;
      }
    }
    if ((root == "mov" || root == "add" || root == "sub" || root == "or" || root == "and" || root == "xor") &&
        in.operands.size() >= 2 && is_register(in.operands[0])) {
      std::string key;
      for (size_t k = 1; k < in.operands.size() && key.empty(); ++k) {
        auto it = bound.find(in.operands[k]);
        if (it != bound.end()) key = it->second;
      }
      if (!key.empty()) {
        bind(in.operands[0], key);
        continue;
      }
    }
    if (std::string d = destination_register(in); !d.empty()) {
      bound.erase(d);
      alias.erase(d);
      // mov %r, symbol: %r holds the symbol's address (an alloc or ld may name either).
      if (root == "mov" && in.operands.size() == 2 && !in.operands[1].empty() &&
          (std::isalpha(static_cast<unsigned char>(in.operands[1][0])) || in.operands[1][0] == '_' ||
           in.operands[1][0] == '$'))
        alias[d] = in.operands[1];
    }
  }

  // A use or dealloc of a name that is not bound yet: bound later (used before its alloc) or never.
  for (size_t i = 0; i < ev.size(); ++i) {
    TmemEvent& e = ev[i];
    if ((e.kind != TmemEvent::Use && e.kind != TmemEvent::Dealloc) || !e.key.empty()) continue;
    for (const auto& b : bindings)
      if (b.first > i && b.second.first == e.name) {
        e.key = b.second.second;
        e.allocated_later = true;
        break;
      }
    if (e.key.empty()) {
      e.known = false;
      e.key = "?" + e.name;
    }
  }
  return ev;
}

std::vector<LifecycleDiagnostic> check_lifecycle(const std::vector<TmemEvent>& events, const LifecycleOptions& opt,
                                                 LifecycleSummary* summary) {
  struct State {
    bool live = false, freed = false, failed = false;
    int64_t counted = 0;
    std::optional<int64_t> columns;
    int pos = 0;
  };
  std::vector<LifecycleDiagnostic> out;
  std::map<std::string, State> st;
  std::vector<std::string> alloc_order;
  int64_t live = 0, peak = 0;
  bool relinquished = false, any_alloc = false, exited = false;
  unsigned first_cg = 0;
  int last_pos = 0;

  // In an open world a dealloc of a handle the stream cannot trace may free any allocation: then
  // no allocation is reported as leaked.
  bool untraced_dealloc = false;
  for (const TmemEvent& e : events) untraced_dealloc = untraced_dealloc || (e.kind == TmemEvent::Dealloc && !e.known);
  auto exit_checks = [&](int pos) {
    for (const std::string& k : alloc_order) {
      const State& s = st[k];
      if (!opt.closed_world && untraced_dealloc) break;
      if (s.live && !s.failed)
        out.push_back(
            {s.pos, "tcgen05.alloc of " + columns_text(s.columns) + " is never deallocated before the kernel exits"});
    }
    if (any_alloc && !relinquished) out.push_back({pos, kRelinquishMissing});
  };

  for (const TmemEvent& e : events) {
    last_pos = e.pos;
    std::optional<std::string> d;
    if (e.cta_group) {
      if (!first_cg)
        first_cg = e.cta_group;
      else if (e.cta_group != first_cg)
        d = "all tcgen05 instructions in a kernel must use the same .cta_group: " + e.inst +
            " uses cta_group::" + std::to_string(e.cta_group) + " after cta_group::" + std::to_string(first_cg);
    }
    switch (e.kind) {
      case TmemEvent::Alloc: {
        any_alloc = true;
        State& s = st[e.key];
        s = State{};
        s.pos = e.pos;
        s.columns = e.columns;
        s.live = true;
        alloc_order.push_back(e.key);
        bool failed = false;
        if (!e.has_scratch) {
          if (!d) d = kTmemNoScratch;
          failed = true;
        } else if (e.columns && *e.columns <= 0) {
          if (!d) d = kTmemInitFailed;
          failed = true;
        } else if (relinquished) {
          if (!d) d = "tcgen05.alloc after tcgen05.relinquish_alloc_permit: the CTA has given up its allocation permit";
        } else if (e.columns && live + *e.columns > opt.total_columns) {
          if (!d)
            d = std::string(kTmemOutOfResource) + std::to_string(*e.columns) + " columns requested, " +
                std::to_string(live) + " of " + std::to_string(opt.total_columns) + " in use";
          failed = true;
        }
        s.failed = failed;
        s.counted = failed ? 0 : e.columns.value_or(0);
        live += s.counted;
        peak = std::max(peak, live);
        break;
      }
      case TmemEvent::Dealloc: {
        if (!e.known) {
          if (opt.closed_world && !d) d = e.inst + " of " + e.name + ", which no tcgen05.alloc defines";
          break;
        }
        if (e.allocated_later) {
          if (!d) d = e.inst + " of " + e.name + " before its tcgen05.alloc";
          break;
        }
        State& s = st[e.key];
        if (s.freed) {
          if (!d) d = e.inst + " of " + e.name + ", which is already deallocated";
          break;
        }
        if (e.columns && s.columns && *e.columns != *s.columns && !d)
          d = e.inst + " of " + e.name + " frees " + std::to_string(*e.columns) +
              " columns, but it was allocated with " + std::to_string(*s.columns);
        s.live = false;
        s.freed = true;
        live -= s.counted;
        break;
      }
      case TmemEvent::Use: {
        if (!e.known) {
          if (opt.closed_world && !d) d = e.inst + " uses " + e.name + ", which no tcgen05.alloc defines";
          break;
        }
        if (e.allocated_later) {
          if (!d)
            d = "tcgen05.alloc must dominate every use of its handle: " + e.inst + " uses " + e.name +
                " before its tcgen05.alloc";
          break;
        }
        if (st[e.key].freed && !d)
          d = "tcgen05.dealloc must post-dominate every use of its handle: " + e.inst + " uses " + e.name +
              " after its tcgen05.dealloc";
        break;
      }
      case TmemEvent::Relinquish:
        relinquished = true;
        break;
      case TmemEvent::Exit:
        if (d) out.push_back({e.pos, *d});
        exit_checks(e.pos);
        exited = true;
        break;
      case TmemEvent::Other:
        break;
    }
    if (exited) break;
    if (d) out.push_back({e.pos, *d});
  }
  if (!exited && opt.kernel_exit) exit_checks(last_pos);
  if (summary) {
    summary->allocations = static_cast<int>(alloc_order.size());
    summary->peak_columns = peak;
  }
  return out;
}

Outcome verify_tmem_alloc_request(const nlohmann::json& r) {
  req::check_keys(r, {"ops", "exit", "closed_world", "tmem_columns"});
  if (!r.contains("ops") || !r["ops"].is_array())
    req::fail("key \"ops\" must be an array of PTX instruction strings or op objects");
  std::vector<StreamOp> ops;
  int pos = 0;
  for (const auto& o : r["ops"]) {
    ++pos;
    StreamOp so;
    so.pos = pos;
    if (o.is_string()) {
      so.instr = parse_instruction(o.get<std::string>(), pos);
      if (!so.instr) req::fail("op " + std::to_string(pos) + " is an empty instruction");
    } else if (o.is_object()) {
      const std::string where = "op " + std::to_string(pos);
      req::check_keys(o, {"op", "handle", "columns", "scratch", "inst", "cta_group"});
      StructuredOp& s = so.structured;
      static const char* kOps[] = {"alloc", "dealloc", "relinquish", "use", "exit", "mma", "ld", "st", "cp", "shift"};
      size_t k =
          req::get_choice(o, "op", {"alloc", "dealloc", "relinquish", "use", "exit", "mma", "ld", "st", "cp", "shift"});
      s.op = kOps[k];
      if (k >= 5) {
        s.inst = std::string("tcgen05.") + kOps[k];
        s.op = "use";
      }
      if (s.op == "alloc" || s.op == "dealloc" || s.op == "use") {
        s.handle = req::get_string(o, "handle");
      }
      if (s.op == "use" && s.inst.empty()) s.inst = req::get_opt_string(o, "inst").value_or("tcgen05.mma");
      s.columns = req::get_opt_int(o, "columns");
      if (s.op == "alloc") {
        if (!s.columns) req::fail(where + ": an alloc needs \"columns\"");
        auto it = o.find("scratch");
        if (it != o.end() && it->is_null())
          s.has_scratch = false;
        else if (auto sc = req::get_opt_string(o, "scratch"))
          s.scratch = *sc;
      }
      if (auto cg = req::get_opt_int(o, "cta_group")) {
        if (*cg != 1 && *cg != 2) req::fail(where + ": \"cta_group\" must be 1 or 2");
        s.cta_group = static_cast<unsigned>(*cg);
      }
    } else {
      req::fail("op " + std::to_string(pos) + " must be a string or an object");
    }
    ops.push_back(std::move(so));
  }
  LifecycleOptions opt;
  opt.kernel_exit = req::get_bool(r, "exit", true);
  opt.closed_world = req::get_bool(r, "closed_world", true);
  if (auto c = req::get_opt_int(r, "tmem_columns")) {
    if (*c <= 0) req::fail("key \"tmem_columns\" must be positive");
    opt.total_columns = *c;
  }
  LifecycleSummary sum;
  auto diags = check_lifecycle(tmem_events_from_ops(ops), opt, &sum);
  Outcome out;
  if (!diags.empty()) {
    out.accepted = false;
    nlohmann::json list = nlohmann::json::array();
    for (const auto& d : diags) {
      out.diagnostics.push_back("op " + std::to_string(d.pos) + ": " + d.message);
      list.push_back({{"op", d.pos}, {"message", d.message}});
    }
    out.result = {{"diagnostics", list}};
    return out;
  }
  out.result_lines.push_back("tmem allocations: " + std::to_string(sum.allocations));
  out.result_lines.push_back("peak tmem columns: " + std::to_string(sum.peak_columns) + " of " +
                             std::to_string(opt.total_columns));
  out.result = {
      {"allocations", sum.allocations}, {"peak_columns", sum.peak_columns}, {"tmem_columns", opt.total_columns}};
  return out;
}

}  // namespace ptxsim::verifiers::tcgen05

namespace ptxsim::verifiers {
Outcome handle_tmem_alloc(const nlohmann::json& request) { return tcgen05::verify_tmem_alloc_request(request); }
}  // namespace ptxsim::verifiers
