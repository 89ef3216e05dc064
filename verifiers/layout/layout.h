// A small CuTe-style layout algebra shared by the verifiers.
//
// A layout is a pair of congruent hierarchical tuples, shape:stride, written as CuTe prints them:
//   8:1        (8,4):(4,1)        ((2,4),8):((1,16),2)        (128,64):(1@1,1@0)
// Leaves are static integers (`8`, `_8`, `-2`), dynamic integers (`?`, a value known only at run
// time) or, in strides only, scaled basis elements `k@axis` (CuTe's ScaledBasis: the value k along
// the named axis of a multi-dimensional codomain; the axis is a number such as `0` or a name such
// as `laneid`). A swizzled layout is written `Sw<B,M,S> o LAYOUT` (optionally with an offset or a
// CuTe pointer tag between them: `Sw<3,4,3> o 0 o L`, `Sw<3,4,3> o smem_ptr[16b](unset) o L`).
//
// Evaluation is colexicographic (the leftmost mode varies fastest), as in CuTe. An index past the
// end of a layout is absorbed by its last mode (the last mode is unbounded), so composition can
// reach past size(A).
//
// Operations that need values (size, evaluation, the algebra) throw LayoutError when an operand
// is dynamic or a precondition (divisibility, injectivity) fails. The parser throws ParseError.
#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ptxsim::verifiers::layout {

struct LayoutError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ParseError : std::runtime_error {
  ParseError(const std::string& what, size_t column)
      : std::runtime_error(what), column(column) {}
  size_t column;  // 0-based position in the parsed text
};

// ---- leaves and hierarchical tuples ------------------------------------------------------------

struct Leaf {
  enum class Kind : uint8_t { Static, Dynamic, Basis };
  Kind kind = Kind::Static;
  int64_t value = 0;  // Static: the value; Basis: the scale k of k@axis; Dynamic: unused
  std::string axis;   // Basis only

  static Leaf integer(int64_t v) { return {Kind::Static, v, {}}; }
  static Leaf dynamic() { return {Kind::Dynamic, 0, {}}; }
  static Leaf basis(int64_t scale, std::string axis) { return {Kind::Basis, scale, std::move(axis)}; }

  bool is_static_int() const { return kind == Kind::Static; }
  bool is_dynamic() const { return kind == Kind::Dynamic; }
  bool is_basis() const { return kind == Kind::Basis; }
  bool is_integer() const { return kind != Kind::Basis; }  // static or dynamic integer
  // A stride leaf times a static integer (a dynamic leaf stays dynamic unless n == 0).
  Leaf scaled(int64_t n) const;
  std::string str() const;
  friend bool operator==(const Leaf&, const Leaf&) = default;
};

class IntTuple {
 public:
  IntTuple() = default;  // the static integer 0
  IntTuple(Leaf leaf) : leaf_(std::move(leaf)) {}  // NOLINT: a leaf is a tuple of depth 0
  static IntTuple integer(int64_t v) { return IntTuple(Leaf::integer(v)); }
  static IntTuple tuple(std::vector<IntTuple> children);

  bool is_leaf() const { return !is_tuple_; }
  bool is_tuple() const { return is_tuple_; }
  const Leaf& leaf() const;                             // throws unless is_leaf()
  const std::vector<IntTuple>& children() const { return children_; }
  size_t rank() const { return is_tuple_ ? children_.size() : 1; }  // top-level modes
  const IntTuple& mode(size_t i) const;                 // a leaf's only mode is itself
  int depth() const;
  std::vector<Leaf> flatten() const;
  bool is_static() const;      // no dynamic leaves
  bool has_basis() const;      // some leaf is a k@axis basis element
  bool congruent(const IntTuple& other) const;  // same tree structure
  // Product of the leaves; nullopt when a leaf is dynamic or a basis element.
  std::optional<int64_t> product() const;
  std::string str() const;
  friend bool operator==(const IntTuple& a, const IntTuple& b);

 private:
  bool is_tuple_ = false;
  Leaf leaf_;
  std::vector<IntTuple> children_;
};

// ---- evaluation results ------------------------------------------------------------------------

// The value of a layout at a coordinate: an integer offset plus, for layouts with basis strides,
// a coefficient per axis (sorted by axis name, no zero coefficients).
struct Value {
  int64_t offset = 0;
  std::vector<std::pair<std::string, int64_t>> basis;
  void add(const Leaf& stride, int64_t coord);  // += coord * stride (stride must not be dynamic)
  bool is_integer() const { return basis.empty(); }
  std::string str() const;  // "5", "3@0+2@1", "7+1@laneid"
  friend bool operator==(const Value&, const Value&) = default;
};

// ---- layouts -----------------------------------------------------------------------------------

class Layout {
 public:
  Layout() : Layout(IntTuple::integer(1), IntTuple::integer(0)) {}  // 1:0
  Layout(IntTuple shape, IntTuple stride);  // throws LayoutError unless congruent
  const IntTuple& shape() const { return shape_; }
  const IntTuple& stride() const { return stride_; }

  size_t rank() const { return shape_.rank(); }
  Layout mode(size_t i) const;
  int depth() const { return shape_.depth(); }
  std::vector<std::pair<Leaf, Leaf>> flat_modes() const;  // (shape, stride) per leaf
  bool is_static() const { return shape_.is_static() && stride_.is_static(); }
  bool has_integer_strides() const { return !stride_.has_basis(); }

  std::optional<int64_t> size() const { return shape_.product(); }
  int64_t static_size() const;  // throws LayoutError if dynamic
  // 1 + the largest offset reached (static layouts with integer strides; 0 for a 0-size layout).
  int64_t cosize() const;

  Value operator()(int64_t index) const;  // colexicographic index (last mode unbounded)
  Value at(const IntTuple& coord) const;  // hierarchical coordinate congruent to a prefix of shape
  int64_t offset(int64_t index) const;    // operator() for integer-stride layouts

  std::string str() const;  // "(8,4):(4,1)"
  friend bool operator==(const Layout&, const Layout&) = default;

 private:
  IntTuple shape_, stride_;
};

// ---- swizzles and swizzled layouts -------------------------------------------------------------

// CuTe's Swizzle<B,M,S>: xor the B bits at [M+S, M+S+B) into the bits at [M, M+B) (S may be
// negative: then the source bits lie below). Requires B >= 0, M >= 0 and |S| >= B so the two
// bit ranges do not overlap; the function is then an involution (its own inverse).
struct Swizzle {
  int bits = 0, base = 4, shift = 3;
  static Swizzle make(int bits, int base, int shift);  // validates, throws LayoutError
  int64_t operator()(int64_t offset) const;
  bool is_identity() const { return bits == 0; }
  std::string str() const;  // "Sw<3,4,3>"
  friend bool operator==(const Swizzle&, const Swizzle&) = default;
};

// swizzle o offset o inner: the value at index i is swizzle(offset + inner(i)).
struct ComposedLayout {
  Swizzle swizzle;
  int64_t offset = 0;
  std::optional<int> ptr_bits;  // written as smem_ptr[Nb](unset) instead of an offset
  Layout inner;
  int64_t operator()(int64_t index) const { return swizzle(offset + inner.offset(index)); }
  std::string str() const;  // "Sw<3,4,3> o (8,64):(64,1)"
  friend bool operator==(const ComposedLayout&, const ComposedLayout&) = default;
};

// Any object the notation can spell: a layout, a swizzled layout, a bare tuple, a bare swizzle.
struct CuteValue {
  enum class Kind : uint8_t { Layout, Composed, IntTuple, Swizzle };
  Kind kind = Kind::Layout;
  Layout layout;          // Kind::Layout
  ComposedLayout composed;  // Kind::Composed
  IntTuple tuple;         // Kind::IntTuple
  Swizzle swizzle;        // Kind::Swizzle

  bool is_layout_like() const { return kind == Kind::Layout || kind == Kind::Composed; }
  // The plain layout (the inner layout of a composed one); throws for tuples and swizzles.
  const Layout& plain() const;
  // Top-level rank of the shape, nullopt for a bare swizzle.
  std::optional<size_t> rank() const;
  std::string str() const;       // the notation, round-trips through parse_cute
  std::string type_str() const;  // "!cute.layout<(8,4):(4,1)>", "!cute.composed_layout<...>",
                                 // "!cute.int_tuple<(8,4)>", "!cute.swizzle<Sw<3,4,3>>"
};

CuteValue parse_cute(std::string_view text);
Layout parse_layout(std::string_view text);  // a plain layout only
IntTuple parse_int_tuple(std::string_view text);
Swizzle parse_swizzle(std::string_view text);

// ---- algebra -----------------------------------------------------------------------------------

// Concatenation: the layout whose top-level modes are the given layouts.
Layout make_layout(const std::vector<Layout>& modes);
// The same function with every mode a leaf.
Layout flatten(const Layout& l);
// The same function on [0, size) with the fewest modes: size-1 modes dropped, neighbours
// (s0:d0),(s1:d1) with d1 == s0*d0 merged (also for basis strides on the same axis). Dynamic
// shapes are never merged. Returns 1:0 when nothing is left, a leaf layout for one mode.
Layout coalesce(const Layout& l);
// Functional composition: composition(a, b)(i) == a(b(i)) for i < size(b). a needs a static shape;
// b a static shape and static integer strides. Has b's mode structure, each leaf of b refined into
// the modes of a it walks. Throws LayoutError when a stride or shape of b does not divide a's
// modes.
Layout composition(const Layout& a, const Layout& b);
// The largest layout r with l(r(i)) == i for every i < size(r) (static, integer strides); 1:0 if
// l(1) != 1-reachable.
Layout right_inverse(const Layout& l);
// complement(l, m): the layout of the offsets in [0, m) that l does not reach, ordered so that
// make_layout(l, complement(l, m)) is a bijection onto [0, m) (rounded up to a multiple). l must be
// static, injective, with non-negative integer strides.
Layout complement(const Layout& l, int64_t cotarget);
// logical_divide(a, tiler) = composition(a, make_layout(tiler, complement(tiler, size(a)))):
// mode 0 walks one tile, mode 1 the tiles.
Layout logical_divide(const Layout& a, const Layout& tiler);

}  // namespace ptxsim::verifiers::layout
