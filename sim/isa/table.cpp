#include "sim/isa/table.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "sim/isa/binder.h"

namespace ptxsim {

// Every binder named in the .def files is declared here, so a row can name any family's binder.
#define FORM(opcode, operands, mods, min_ptx, targets, flags, bind) void bind(Binder&);
#include "sim/isa/forms.def"
#undef FORM

namespace {

const FormSpec kForms[] = {
#define FORM(opcode, operands, mods, min_ptx, targets, flags, bind) \
  {opcode, operands, mods, min_ptx, targets, flags, &bind},
#include "sim/isa/forms.def"
#undef FORM
};

std::vector<std::string_view> split_ws(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ') ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

}  // namespace

std::string Target::name() const {
  std::string s = "sm_" + std::to_string(sm);
  if (suffix) s += suffix;
  return s;
}

bool Target::parse(std::string_view s, Target& out) {
  if (s.size() < 4 || s.substr(0, 3) != "sm_") return false;
  size_t i = 3;
  uint32_t v = 0;
  if (i >= s.size() || s[i] < '0' || s[i] > '9') return false;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') v = v * 10 + uint32_t(s[i++] - '0');
  char suf = 0;
  if (i < s.size()) {
    if (i + 1 != s.size() || (s[i] != 'a' && s[i] != 'f')) return false;
    suf = s[i];
  }
  out.sm = v;
  out.suffix = suf;
  return true;
}

bool target_satisfies(const Target& t, std::string_view req) {
  if (req.empty()) return true;
  size_t i = 0;
  while (i <= req.size()) {
    size_t j = req.find('|', i);
    if (j == std::string_view::npos) j = req.size();
    Target r;
    if (Target::parse(req.substr(i, j - i), r)) {
      if (r.suffix == 0 && t.sm >= r.sm) return true;
      if (r.suffix == 'a' && t.suffix == 'a' && t.sm == r.sm) return true;
      // Family-specific: same major generation (sm_100, sm_101, sm_103 share 10x), 'a' or 'f'.
      if (r.suffix == 'f' && (t.suffix == 'a' || t.suffix == 'f') && t.sm / 10 == r.sm / 10 &&
          t.sm >= r.sm)
        return true;
    }
    i = j + 1;
  }
  return false;
}

const InstrTable& InstrTable::get() {
  static const InstrTable table;
  return table;
}

InstrTable::InstrTable() {
  forms_.assign(std::begin(kForms), std::end(kForms));
  mods_.push_back({});  // id 0 unused so that "0" never means a real modifier
  std::vector<std::pair<std::string, int>> index;
  auto intern = [&](std::string_view tok) {
    for (auto& [t, id] : index)
      if (t == tok) return id;
    ModInfo mi;
    mi.token = std::string(tok);
    mi.type = dtype_from_name(tok.substr(1));
    mods_.push_back(mi);
    int id = int(mods_.size() - 1);
    if (size_t(id) >= kMaxMods) throw std::logic_error("instruction table: too many modifiers");
    index.emplace_back(std::string(tok), id);
    return id;
  };
  for (uint16_t f = 0; f < forms_.size(); ++f) {
    Compiled c;
    for (std::string_view tok : split_ws(forms_[f].mods)) {
      if (tok == "*") continue;
      std::string_view req;
      size_t at = tok.find('@');
      if (at != std::string_view::npos) {
        req = tok.substr(at + 1);
        tok = tok.substr(0, at);
      }
      if (tok.empty() || tok[0] != '.') throw std::logic_error("instruction table: bad modifier token");
      int id = intern(tok);
      c.allowed.set(size_t(id));
      if (!req.empty()) c.gated.emplace_back(id, std::string(req));
    }
    compiled_.push_back(std::move(c));
    std::string op = forms_[f].opcode;
    size_t parts = size_t(std::count(op.begin(), op.end(), '.')) + 1;
    max_parts_ = std::max(max_parts_, parts);
    auto it = std::find_if(by_opcode_.begin(), by_opcode_.end(), [&](auto& p) { return p.first == op; });
    if (it == by_opcode_.end()) by_opcode_.push_back({op, {f}});
    else it->second.push_back(f);
  }
  std::sort(by_opcode_.begin(), by_opcode_.end());
  std::sort(index.begin(), index.end());
  mod_index_ = std::move(index);
}

const std::vector<uint16_t>* InstrTable::find(std::string_view opcode) const {
  auto it = std::lower_bound(by_opcode_.begin(), by_opcode_.end(), opcode,
                             [](const auto& p, std::string_view k) { return p.first < k; });
  if (it == by_opcode_.end() || it->first != opcode) return nullptr;
  return &it->second;
}

int InstrTable::mod_id(std::string_view token) const {
  auto it = std::lower_bound(mod_index_.begin(), mod_index_.end(), token,
                             [](const auto& p, std::string_view k) { return p.first < k; });
  if (it == mod_index_.end() || it->first != token) return -1;
  return it->second;
}

bool InstrTable::allows(uint16_t f, int m, std::string_view* req) const {
  const Compiled& c = compiled_[f];
  if (m <= 0 || !c.allowed.test(size_t(m))) return false;
  if (req) {
    *req = {};
    for (auto& [id, r] : c.gated)
      if (id == m) *req = r;
  }
  return true;
}

void bind_unimplemented(Binder& b) { b.unimplemented(); }

}  // namespace ptxsim
