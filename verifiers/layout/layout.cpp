#include "verifiers/layout/layout.h"

#include <algorithm>
#include <limits>

namespace ptxsim::verifiers::layout {

namespace {

int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw LayoutError("layout arithmetic overflows 64 bits");
  return r;
}

int64_t checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw LayoutError("layout arithmetic overflows 64 bits");
  return r;
}

int64_t static_value(const Leaf& l, const char* what) {
  if (!l.is_static_int()) throw LayoutError(std::string(what) + " must be a static integer, got " + l.str());
  return l.value;
}

Layout from_modes(const std::vector<std::pair<Leaf, Leaf>>& modes) {
  if (modes.empty()) return Layout();
  if (modes.size() == 1) return Layout(IntTuple(modes[0].first), IntTuple(modes[0].second));
  std::vector<IntTuple> shape, stride;
  for (const auto& [s, d] : modes) {
    shape.emplace_back(s);
    stride.emplace_back(d);
  }
  return Layout(IntTuple::tuple(std::move(shape)), IntTuple::tuple(std::move(stride)));
}

}  // namespace

// ---- Leaf --------------------------------------------------------------------------------------

Leaf Leaf::scaled(int64_t n) const {
  switch (kind) {
    case Kind::Static: return integer(checked_mul(value, n));
    case Kind::Dynamic: return n == 0 ? integer(0) : dynamic();
    case Kind::Basis: return n == 0 ? integer(0) : basis(checked_mul(value, n), axis);
  }
  return *this;
}

std::string Leaf::str() const {
  switch (kind) {
    case Kind::Static: return std::to_string(value);
    case Kind::Dynamic: return "?";
    case Kind::Basis: return std::to_string(value) + "@" + axis;
  }
  return "";
}

// ---- IntTuple ----------------------------------------------------------------------------------

IntTuple IntTuple::tuple(std::vector<IntTuple> children) {
  IntTuple t;
  t.is_tuple_ = true;
  t.children_ = std::move(children);
  return t;
}

const Leaf& IntTuple::leaf() const {
  if (is_tuple_) throw LayoutError("not a leaf: " + str());
  return leaf_;
}

const IntTuple& IntTuple::mode(size_t i) const {
  if (!is_tuple_) {
    if (i != 0) throw LayoutError("mode " + std::to_string(i) + " of a rank-1 tuple");
    return *this;
  }
  if (i >= children_.size())
    throw LayoutError("mode " + std::to_string(i) + " of a rank-" + std::to_string(children_.size()) +
                      " tuple");
  return children_[i];
}

int IntTuple::depth() const {
  if (!is_tuple_) return 0;
  int d = 0;
  for (const auto& c : children_) d = std::max(d, c.depth());
  return d + 1;
}

std::vector<Leaf> IntTuple::flatten() const {
  if (!is_tuple_) return {leaf_};
  std::vector<Leaf> out;
  for (const auto& c : children_) {
    auto f = c.flatten();
    out.insert(out.end(), f.begin(), f.end());
  }
  return out;
}

bool IntTuple::is_static() const {
  for (const Leaf& l : flatten())
    if (l.is_dynamic()) return false;
  return true;
}

bool IntTuple::has_basis() const {
  for (const Leaf& l : flatten())
    if (l.is_basis()) return true;
  return false;
}

bool IntTuple::congruent(const IntTuple& o) const {
  if (is_tuple_ != o.is_tuple_) return false;
  if (!is_tuple_) return true;
  if (children_.size() != o.children_.size()) return false;
  for (size_t i = 0; i < children_.size(); ++i)
    if (!children_[i].congruent(o.children_[i])) return false;
  return true;
}

std::optional<int64_t> IntTuple::product() const {
  int64_t p = 1;
  for (const Leaf& l : flatten()) {
    if (!l.is_static_int()) return std::nullopt;
    if (__builtin_mul_overflow(p, l.value, &p)) return std::nullopt;
  }
  return p;
}

std::string IntTuple::str() const {
  if (!is_tuple_) return leaf_.str();
  std::string s = "(";
  for (size_t i = 0; i < children_.size(); ++i) {
    if (i) s += ",";
    s += children_[i].str();
  }
  return s + ")";
}

bool operator==(const IntTuple& a, const IntTuple& b) {
  if (a.is_tuple_ != b.is_tuple_) return false;
  if (!a.is_tuple_) return a.leaf_ == b.leaf_;
  return a.children_ == b.children_;
}

// ---- Value -------------------------------------------------------------------------------------

void Value::add(const Leaf& stride, int64_t coord) {
  if (coord == 0) return;
  switch (stride.kind) {
    case Leaf::Kind::Static: offset = checked_add(offset, checked_mul(coord, stride.value)); return;
    case Leaf::Kind::Dynamic: throw LayoutError("cannot evaluate a layout with a dynamic stride");
    case Leaf::Kind::Basis: {
      int64_t delta = checked_mul(coord, stride.value);
      auto it = std::lower_bound(basis.begin(), basis.end(), stride.axis,
                                 [](const auto& e, const std::string& a) { return e.first < a; });
      if (it != basis.end() && it->first == stride.axis) {
        it->second = checked_add(it->second, delta);
        if (it->second == 0) basis.erase(it);
      } else if (delta != 0) {
        basis.insert(it, {stride.axis, delta});
      }
      return;
    }
  }
}

std::string Value::str() const {
  std::string s;
  if (offset != 0 || basis.empty()) s = std::to_string(offset);
  for (const auto& [axis, k] : basis) {
    if (!s.empty()) s += "+";
    s += std::to_string(k) + "@" + axis;
  }
  return s;
}

// ---- Layout ------------------------------------------------------------------------------------

Layout::Layout(IntTuple shape, IntTuple stride) : shape_(std::move(shape)), stride_(std::move(stride)) {
  if (!shape_.congruent(stride_))
    throw LayoutError("shape " + shape_.str() + " and stride " + stride_.str() + " are not congruent");
  for (const Leaf& l : shape_.flatten()) {
    if (l.is_basis()) throw LayoutError("a shape cannot contain the basis element " + l.str());
    if (l.is_static_int() && l.value < 0)
      throw LayoutError("a shape cannot contain the negative extent " + l.str());
  }
}

Layout Layout::mode(size_t i) const { return Layout(shape_.mode(i), stride_.mode(i)); }

std::vector<std::pair<Leaf, Leaf>> Layout::flat_modes() const {
  auto s = shape_.flatten(), d = stride_.flatten();
  std::vector<std::pair<Leaf, Leaf>> out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) out.emplace_back(s[i], d[i]);
  return out;
}

int64_t Layout::static_size() const {
  auto s = size();
  if (!s) throw LayoutError("the size of " + str() + " is not static");
  return *s;
}

int64_t Layout::cosize() const {
  int64_t n = static_size();
  if (n == 0) return 0;
  int64_t hi = 0;
  for (const auto& [s, d] : flat_modes()) {
    int64_t stride = static_value(d, "a stride");
    int64_t extent = static_value(s, "a shape");
    if (stride > 0) hi = checked_add(hi, checked_mul(extent - 1, stride));
  }
  return hi + 1;
}

Value Layout::operator()(int64_t index) const {
  if (index < 0) throw LayoutError("negative index " + std::to_string(index));
  auto modes = flat_modes();
  Value v;
  for (size_t i = 0; i < modes.size(); ++i) {
    const auto& [s, d] = modes[i];
    int64_t c = index;
    if (i + 1 < modes.size()) {
      int64_t extent = static_value(s, "an inner shape of an evaluated layout");
      if (extent == 0) throw LayoutError("evaluating a layout of size 0");
      c = index % extent;
      index /= extent;
    }
    v.add(d, c);
  }
  return v;
}

namespace {

void eval_at(const IntTuple& shape, const IntTuple& stride, const IntTuple& coord, Value& v) {
  if (coord.is_leaf()) {
    if (!coord.leaf().is_static_int()) throw LayoutError("a coordinate must be a static integer");
    Value sub = Layout(shape, stride)(coord.leaf().value);
    v.offset = checked_add(v.offset, sub.offset);
    for (const auto& [axis, k] : sub.basis) v.add(Leaf::basis(k, axis), 1);
    return;
  }
  if (!shape.is_tuple() || shape.rank() != coord.rank())
    throw LayoutError("coordinate " + coord.str() + " does not match shape " + shape.str());
  for (size_t i = 0; i < coord.rank(); ++i) eval_at(shape.mode(i), stride.mode(i), coord.mode(i), v);
}

}  // namespace

Value Layout::at(const IntTuple& coord) const {
  Value v;
  eval_at(shape_, stride_, coord, v);
  return v;
}

int64_t Layout::offset(int64_t index) const {
  Value v = (*this)(index);
  if (!v.is_integer()) throw LayoutError("layout " + str() + " has basis strides, not integer offsets");
  return v.offset;
}

std::string Layout::str() const { return shape_.str() + ":" + stride_.str(); }

// ---- Swizzle -----------------------------------------------------------------------------------

Swizzle Swizzle::make(int bits, int base, int shift) {
  if (bits < 0 || base < 0 || bits > 16 || base > 40 || shift < -40 || shift > 40)
    throw LayoutError("Sw<" + std::to_string(bits) + "," + std::to_string(base) + "," +
                      std::to_string(shift) + "> is out of range");
  if ((shift < 0 ? -shift : shift) < bits)
    throw LayoutError("Sw<" + std::to_string(bits) + "," + std::to_string(base) + "," +
                      std::to_string(shift) + "> needs |S| >= B");
  return Swizzle{bits, base, shift};
}

int64_t Swizzle::operator()(int64_t offset) const {
  if (bits == 0) return offset;
  uint64_t x = static_cast<uint64_t>(offset);
  uint64_t mask = (uint64_t{1} << bits) - 1;
  if (shift >= 0) {
    uint64_t src = mask << (base + shift);
    return static_cast<int64_t>(x ^ ((x & src) >> shift));
  }
  uint64_t src = mask << base;
  return static_cast<int64_t>(x ^ ((x & src) << -shift));
}

std::string Swizzle::str() const {
  return "Sw<" + std::to_string(bits) + "," + std::to_string(base) + "," + std::to_string(shift) + ">";
}

std::string ComposedLayout::str() const {
  std::string s = swizzle.str() + " o ";
  if (ptr_bits)
    s += "smem_ptr[" + std::to_string(*ptr_bits) + "b](unset) o ";
  else if (offset != 0)
    s += std::to_string(offset) + " o ";
  return s + inner.str();
}

// ---- CuteValue ---------------------------------------------------------------------------------

const Layout& CuteValue::plain() const {
  if (kind == Kind::Layout) return layout;
  if (kind == Kind::Composed) return composed.inner;
  throw LayoutError(str() + " is not a layout");
}

std::optional<size_t> CuteValue::rank() const {
  switch (kind) {
    case Kind::Layout: return layout.rank();
    case Kind::Composed: return composed.inner.rank();
    case Kind::IntTuple: return tuple.rank();
    case Kind::Swizzle: return std::nullopt;
  }
  return std::nullopt;
}

std::string CuteValue::str() const {
  switch (kind) {
    case Kind::Layout: return layout.str();
    case Kind::Composed: return composed.str();
    case Kind::IntTuple: return tuple.str();
    case Kind::Swizzle: return swizzle.str();
  }
  return "";
}

std::string CuteValue::type_str() const {
  switch (kind) {
    case Kind::Layout: return "!cute.layout<" + str() + ">";
    case Kind::Composed: return "!cute.composed_layout<" + str() + ">";
    case Kind::IntTuple: return "!cute.int_tuple<" + str() + ">";
    case Kind::Swizzle: return "!cute.swizzle<" + str() + ">";
  }
  return "";
}

// ---- algebra -----------------------------------------------------------------------------------

Layout make_layout(const std::vector<Layout>& modes) {
  std::vector<IntTuple> shape, stride;
  for (const Layout& m : modes) {
    shape.push_back(m.shape());
    stride.push_back(m.stride());
  }
  return Layout(IntTuple::tuple(std::move(shape)), IntTuple::tuple(std::move(stride)));
}

Layout flatten(const Layout& l) {
  if (l.shape().is_leaf()) return l;
  std::vector<IntTuple> shape, stride;
  for (const auto& [s, d] : l.flat_modes()) {
    shape.emplace_back(s);
    stride.emplace_back(d);
  }
  return Layout(IntTuple::tuple(std::move(shape)), IntTuple::tuple(std::move(stride)));
}

Layout coalesce(const Layout& l) {
  std::vector<std::pair<Leaf, Leaf>> out;
  for (const auto& [s, d] : l.flat_modes()) {
    if (s.is_static_int() && s.value == 1) continue;
    if (!out.empty()) {
      const auto& [ps, pd] = out.back();
      bool mergeable = ps.is_static_int() && s.is_static_int() && !pd.is_dynamic() && !d.is_dynamic();
      if (mergeable && pd.scaled(ps.value) == d) {
        out.back().first = Leaf::integer(checked_mul(ps.value, s.value));
        continue;
      }
    }
    out.emplace_back(s, d);
  }
  if (out.empty()) return Layout();
  return from_modes(out);
}

namespace {

// The modes a walks for one leaf s:d of the right-hand side (see composition()).
std::vector<std::pair<Leaf, Leaf>> compose_leaf(const std::vector<std::pair<Leaf, Leaf>>& a,
                                                int64_t s, int64_t d) {
  if (s == 1) return {{Leaf::integer(1), Leaf::integer(0)}};
  if (d == 0) return {{Leaf::integer(s), Leaf::integer(0)}};
  if (d < 0) throw LayoutError("composition with the negative stride " + std::to_string(d));
  std::vector<std::pair<Leaf, Leaf>> out;
  int64_t rest_stride = d, rest_size = s;
  for (size_t i = 0; i < a.size(); ++i) {
    const bool last = i + 1 == a.size();
    const int64_t extent = a[i].first.value;
    const Leaf& stride = a[i].second;
    int64_t avail = std::numeric_limits<int64_t>::max();
    if (!last) {
      if (rest_stride >= extent) {
        if (rest_stride % extent != 0)
          throw LayoutError("composition: stride " + std::to_string(d) + " is not divisible by the extent " +
                            std::to_string(extent));
        rest_stride /= extent;
        continue;
      }
      if (extent % rest_stride != 0)
        throw LayoutError("composition: the extent " + std::to_string(extent) +
                          " is not divisible by the stride " + std::to_string(rest_stride));
      avail = extent / rest_stride;
    }
    Leaf walked = stride.scaled(rest_stride);
    if (rest_size <= avail) {
      out.emplace_back(Leaf::integer(rest_size), walked);
      rest_size = 1;
      break;
    }
    if (rest_size % avail != 0)
      throw LayoutError("composition: the size " + std::to_string(s) + " does not divide into the extent " +
                        std::to_string(extent));
    out.emplace_back(Leaf::integer(avail), walked);
    rest_size /= avail;
    rest_stride = 1;
  }
  return out;
}

IntTuple compose_tree(const std::vector<std::pair<Leaf, Leaf>>& a, const IntTuple& bs, const IntTuple& bd,
                      IntTuple& out_stride) {
  if (bs.is_leaf()) {
    auto modes = compose_leaf(a, bs.leaf().value, bd.leaf().value);
    Layout l = from_modes(modes);
    out_stride = l.stride();
    return l.shape();
  }
  std::vector<IntTuple> shape, stride;
  for (size_t i = 0; i < bs.rank(); ++i) {
    IntTuple st;
    shape.push_back(compose_tree(a, bs.mode(i), bd.mode(i), st));
    stride.push_back(std::move(st));
  }
  out_stride = IntTuple::tuple(std::move(stride));
  return IntTuple::tuple(std::move(shape));
}

}  // namespace

Layout composition(const Layout& a, const Layout& b) {
  if (!a.shape().is_static()) throw LayoutError("composition: the outer layout " + a.str() + " has a dynamic shape");
  if (!b.is_static() || b.stride().has_basis())
    throw LayoutError("composition: the inner layout " + b.str() + " must be static with integer strides");
  auto a_modes = coalesce(a).flat_modes();
  for (const auto& m : a_modes)
    if (m.first.value == 0) throw LayoutError("composition: the outer layout " + a.str() + " has size 0");
  IntTuple stride;
  IntTuple shape = compose_tree(a_modes, b.shape(), b.stride(), stride);
  return Layout(std::move(shape), std::move(stride));
}

Layout right_inverse(const Layout& l) {
  if (!l.is_static() || l.stride().has_basis())
    throw LayoutError("right_inverse: " + l.str() + " must be static with integer strides");
  struct M {
    int64_t shape, stride, domain;
  };
  std::vector<M> modes;
  int64_t domain = 1;
  for (const auto& [s, d] : coalesce(l).flat_modes()) {
    if (d.value > 0 && s.value > 1) modes.push_back({s.value, d.value, domain});
    domain = checked_mul(domain, s.value);
  }
  std::stable_sort(modes.begin(), modes.end(), [](const M& x, const M& y) { return x.stride < y.stride; });
  std::vector<std::pair<Leaf, Leaf>> out;
  int64_t current = 1;
  for (const M& m : modes) {
    if (m.stride != current) break;
    out.emplace_back(Leaf::integer(m.shape), Leaf::integer(m.domain));
    current = checked_mul(current, m.shape);
  }
  return from_modes(out);
}

Layout complement(const Layout& l, int64_t cotarget) {
  if (!l.is_static() || l.stride().has_basis())
    throw LayoutError("complement: " + l.str() + " must be static with integer strides");
  std::vector<std::pair<int64_t, int64_t>> modes;  // (stride, shape)
  for (const auto& [s, d] : coalesce(l).flat_modes()) {
    if (d.value < 0) throw LayoutError("complement: negative stride in " + l.str());
    if (s.value > 1 && d.value != 0) modes.emplace_back(d.value, s.value);
  }
  std::sort(modes.begin(), modes.end());
  std::vector<std::pair<Leaf, Leaf>> out;
  int64_t current = 1;
  for (const auto& [d, s] : modes) {
    if (d < current || d % current != 0)
      throw LayoutError("complement: " + l.str() + " is not injective with divisible strides");
    out.emplace_back(Leaf::integer(d / current), Leaf::integer(current));
    current = checked_mul(s, d);
  }
  int64_t rest = cotarget <= current ? 1 : (cotarget + current - 1) / current;
  out.emplace_back(Leaf::integer(rest), Leaf::integer(current));
  return coalesce(from_modes(out));
}

Layout logical_divide(const Layout& a, const Layout& tiler) {
  return composition(a, make_layout({tiler, complement(tiler, a.static_size())}));
}

}  // namespace ptxsim::verifiers::layout
