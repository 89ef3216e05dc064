// The CuTe-style layout algebra of verifiers/layout: notation, evaluation, coalesce, composition,
// inverses, complement, logical_divide, swizzles. Worked examples follow CuTe's documented results;
// RapidCheck properties check the algebra's defining equations.
// RapidCheck prints its seed; rerun with RC_PARAMS="seed=N" to reproduce.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <ostream>
#include <set>

#include "verifiers/layout/layout.h"

using namespace ptxsim::verifiers::layout;

namespace ptxsim::verifiers::layout {
// RapidCheck prints counterexamples through this.
inline void showValue(const Layout& l, std::ostream& os) { os << l.str(); }
}  // namespace ptxsim::verifiers::layout

namespace {

Layout L(const char* text) { return parse_layout(text); }

// ---- notation ----------------------------------------------------------------------------------

TEST(LayoutNotation, RoundTrips) {
  for (const char* s : {"8:1", "(8,4):(4,1)", "((2,4),8):((1,16),2)", "(8,4,2,2):(4,1,2,1)", "(64):(1@0)",
                        "(128,64):(1@1,1@0)", "(?,?):(?,1)", "(8,4,2,2):(4@laneid,1@laneid,2,1)", "(4,2):(1,-3)",
                        "()"}) {
    SCOPED_TRACE(s);
    EXPECT_EQ(parse_cute(s).str(), s);
  }
  EXPECT_EQ(parse_cute("Sw<3,4,3> o (8,64):(64,1)").str(), "Sw<3,4,3> o (8,64):(64,1)");
  EXPECT_EQ(parse_cute("Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)").str(),
            "Sw<3,4,3> o smem_ptr[16b](unset) o (8,64):(64,1)");
  EXPECT_EQ(parse_cute("Sw<2,4,3> o 0 o 8:1").str(), "Sw<2,4,3> o 8:1");
  EXPECT_EQ(parse_cute("Sw<2,4,3> o 32 o 8:1").str(), "Sw<2,4,3> o 32 o 8:1");
  EXPECT_EQ(parse_cute("  ( 8 , 4 ) : ( 4 , 1 ) ").str(), "(8,4):(4,1)");
  EXPECT_THROW(parse_cute("(1,-3):(-2,1)"), ParseError);  // a negative extent
}

TEST(LayoutNotation, Kinds) {
  EXPECT_EQ(parse_cute("(8,4):(4,1)").type_str(), "!cute.layout<(8,4):(4,1)>");
  EXPECT_EQ(parse_cute("Sw<3,4,3> o (8,64):(64,1)").type_str(), "!cute.composed_layout<Sw<3,4,3> o (8,64):(64,1)>");
  EXPECT_EQ(parse_cute("(8,4)").type_str(), "!cute.int_tuple<(8,4)>");
  EXPECT_EQ(parse_cute("Sw<3,4,3>").type_str(), "!cute.swizzle<Sw<3,4,3>>");
  EXPECT_EQ(parse_cute("Swizzle<1,4,3>").str(), "Sw<1,4,3>");
  EXPECT_EQ(parse_cute("(8,4)").rank(), 2u);
  EXPECT_FALSE(parse_cute("Sw<3,4,3>").rank().has_value());
  EXPECT_EQ(parse_cute("Sw<3,4,3> o ((8,2),64):((64,512),1)").rank(), 2u);
}

TEST(LayoutNotation, Errors) {
  for (const char* s : {"(8,4):(4)", "(8,4", "8:1 extra", "Sw<1,4,0> o 8:1", "Sw<3,4,3> o", "8:", "(8,?):(1@,2)",
                        "(1@0,2):(1,2)", "", "Sw<3,4,3> o (8,2) o 8:1", "(8,4)@"}) {
    SCOPED_TRACE(s);
    EXPECT_THROW(parse_cute(s), ParseError);
  }
  try {
    parse_cute("(8,4):(4,1) x");
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_EQ(e.column, 12u);
  }
  EXPECT_THROW(parse_layout("(8,4)"), ParseError);
  EXPECT_THROW(parse_swizzle("8:1"), ParseError);
}

// ---- size, evaluation --------------------------------------------------------------------------

TEST(LayoutEval, SizeCosizeAndValues) {
  Layout a = L("(8,4):(4,1)");
  EXPECT_EQ(a.size(), 32);
  EXPECT_EQ(a.cosize(), 32);
  EXPECT_EQ(a.offset(9), 5);  // (1,1)
  EXPECT_EQ(a.at(parse_int_tuple("(1,1)")).offset, 5);
  EXPECT_EQ(a.at(parse_int_tuple("9")).offset, 5);
  EXPECT_EQ(L("(4,2):(2,16)").cosize(), 23);
  Layout h = L("((2,4),8):((1,16),2)");
  EXPECT_EQ(h.rank(), 2u);
  EXPECT_EQ(h.depth(), 2);
  EXPECT_EQ(h.offset(1), 1);
  EXPECT_EQ(h.offset(2), 16);
  EXPECT_EQ(h.offset(8), 2);
  EXPECT_EQ(h.at(parse_int_tuple("((1,2),3)")).offset, 1 + 32 + 6);
  // The last mode is unbounded.
  EXPECT_EQ(L("(4,2):(1,4)").offset(9), 9);
  // Basis strides evaluate to coordinates.
  Layout frag = L("(8,4,2,2):(4@laneid,1@laneid,2,1)");
  EXPECT_EQ(frag(1).str(), "4@laneid");
  EXPECT_EQ(frag(8 + 32).str(), "2+1@laneid");
  EXPECT_EQ(L("(64,128):(1@1,1@0)")(65).str(), "1@0+1@1");
  EXPECT_FALSE(L("(?,4):(1,?)").size().has_value());
  EXPECT_THROW(L("(4,?):(1,?)").offset(5), LayoutError);
}

TEST(LayoutSwizzle, Functor) {
  Swizzle s = Swizzle::make(3, 4, 3);
  EXPECT_EQ(s(0x80), 0x90);   // A[7] -> A[4]
  EXPECT_EQ(s(0x380), 0x3F0);
  EXPECT_EQ(s(0x0F), 0x0F);
  EXPECT_EQ(Swizzle::make(1, 4, 3)(0x80), 0x90);
  EXPECT_EQ(Swizzle::make(1, 4, 3)(0x100), 0x100);  // 32B swizzle only looks at A[7]
  EXPECT_EQ(Swizzle::make(0, 4, 3)(0x80), 0x80);
  EXPECT_EQ(Swizzle::make(2, 4, -3)(0x10), 0x90);    // negative shift: source below
  EXPECT_THROW(Swizzle::make(3, 4, 2), LayoutError);
  ComposedLayout c = parse_cute("Sw<3,4,3> o (8,64):(64,1)").composed;
  EXPECT_EQ(c(1 + 8 * 2), 66);  // (1,2) -> 66; bits 7..9 clear, nothing moves
  EXPECT_EQ(c(2), 128 ^ 16);    // (2,0) -> 128; A[7] is xored into A[4]
  EXPECT_EQ(c(7 + 8 * 3), (7 * 64 + 3) ^ (3 << 4));
}

// ---- algebra -----------------------------------------------------------------------------------

TEST(LayoutAlgebra, Coalesce) {
  EXPECT_EQ(coalesce(L("(2,4):(1,2)")).str(), "8:1");
  EXPECT_EQ(coalesce(L("(2,1,4):(1,7,2)")).str(), "8:1");
  EXPECT_EQ(coalesce(L("((2,2),2):((1,2),4)")).str(), "8:1");
  EXPECT_EQ(coalesce(L("(4,2):(2,1)")).str(), "(4,2):(2,1)");
  EXPECT_EQ(coalesce(L("(2,4):(1@0,2@0)")).str(), "8:1@0");
  EXPECT_EQ(coalesce(L("(2,4):(1@0,2@1)")).str(), "(2,4):(1@0,2@1)");
  EXPECT_EQ(coalesce(L("(1,1):(3,5)")).str(), "1:0");
  EXPECT_EQ(coalesce(L("(2,2):(0,0)")).str(), "4:0");
  EXPECT_EQ(coalesce(L("(?,4):(1,?)")).str(), "(?,4):(1,?)");
  EXPECT_EQ(coalesce(L("(4,?):(1,4)")).str(), "(4,?):(1,4)");
}

TEST(LayoutAlgebra, Composition) {
  // CuTe's documented example.
  EXPECT_EQ(composition(L("(6,2):(8,2)"), L("(4,3):(3,1)")).str(), "((2,2),3):((24,2),8)");
  EXPECT_EQ(composition(L("20:2"), L("(5,4):(4,1)")).str(), "(5,4):(8,2)");
  EXPECT_EQ(composition(L("(10,2):(16,4)"), L("(5,4):(1,5)")).str(), "(5,(2,2)):(16,(80,4))");
  // Through basis strides: the CTA V-map walked in SMEM offset order.
  Layout inv = right_inverse(L("(128,64):(64,1)"));
  EXPECT_EQ(inv.str(), "(64,128):(128,1)");
  EXPECT_EQ(coalesce(composition(L("(128,64):(1@0,1@1)"), inv)).str(), "(64,128):(1@1,1@0)");
  EXPECT_EQ(composition(L("(3,2):(1,3)"), L("2:2")).str(), "2:2");      // (3,2):(1,3) coalesces to 6:1
  EXPECT_THROW(composition(L("(3,2):(2,7)"), L("2:2")), LayoutError);  // 2 does not divide 3
  EXPECT_THROW(composition(L("(?,2):(1,4)"), L("2:1")), LayoutError);
}

TEST(LayoutAlgebra, InversesComplementDivide) {
  EXPECT_EQ(right_inverse(L("(4,8):(8,1)")).str(), "(8,4):(4,1)");
  EXPECT_EQ(right_inverse(L("(4,2):(1,8)")).str(), "4:1");  // only [0,4) is reached contiguously
  EXPECT_EQ(right_inverse(L("4:2")).str(), "1:0");
  EXPECT_EQ(complement(L("4:2"), 16).str(), "(2,2):(1,8)");
  EXPECT_EQ(complement(L("(2,2):(1,6)"), 24).str(), "(3,2):(2,12)");
  EXPECT_EQ(complement(L("4:1"), 24).str(), "6:4");
  EXPECT_THROW(complement(L("(2,2):(1,3)"), 12), LayoutError);
  // CuTe's documented logical_divide example.
  EXPECT_EQ(logical_divide(L("(4,2,3):(2,1,8)"), L("4:2")).str(), "((2,2),(2,3)):((4,1),(2,8))");
  EXPECT_EQ(flatten(L("((2,4),8):((1,16),2)")).str(), "(2,4,8):(1,16,2)");
  EXPECT_EQ(make_layout({L("4:1"), L("(2,3):(4,8)")}).str(), "(4,(2,3)):(1,(4,8))");
}

// ---- properties --------------------------------------------------------------------------------

// A random layout: 1-4 modes (some grouped), extents 1..8, strides 0..40.
rc::Gen<Layout> gen_layout() {
  return rc::gen::exec([] {
    const int n = *rc::gen::inRange(1, 5);
    std::vector<IntTuple> shape, stride;
    for (int i = 0; i < n; ++i) {
      shape.push_back(IntTuple::integer(*rc::gen::inRange<int64_t>(1, 9)));
      stride.push_back(IntTuple::integer(*rc::gen::inRange<int64_t>(0, 41)));
    }
    if (n >= 3 && *rc::gen::arbitrary<bool>()) {  // group the first two modes
      IntTuple gs = IntTuple::tuple({shape[0], shape[1]}), gd = IntTuple::tuple({stride[0], stride[1]});
      shape.erase(shape.begin(), shape.begin() + 2);
      stride.erase(stride.begin(), stride.begin() + 2);
      shape.insert(shape.begin(), gs);
      stride.insert(stride.begin(), gd);
    }
    return Layout(IntTuple::tuple(shape), IntTuple::tuple(stride));
  });
}

// A compact (bijective onto [0, size)) layout: extents 1..6 laid out in a random order.
rc::Gen<Layout> gen_compact() {
  return rc::gen::exec([] {
    const int n = *rc::gen::inRange(1, 5);
    std::vector<int64_t> ext(static_cast<size_t>(n));
    for (auto& e : ext) e = *rc::gen::inRange<int64_t>(1, 7);
    std::vector<size_t> order(ext.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[*rc::gen::inRange<size_t>(0, i)]);
    std::vector<int64_t> str(ext.size());
    int64_t run = 1;
    for (size_t k : order) {
      str[k] = run;
      run *= ext[k];
    }
    std::vector<IntTuple> shape, stride;
    for (size_t i = 0; i < ext.size(); ++i) {
      shape.push_back(IntTuple::integer(ext[i]));
      stride.push_back(IntTuple::integer(str[i]));
    }
    return Layout(IntTuple::tuple(shape), IntTuple::tuple(stride));
  });
}

// Small layouts: 1-3 modes, extents 1..4, strides 0..6.
rc::Gen<Layout> gen_small() {
  return rc::gen::exec([] {
    const int n = *rc::gen::inRange(1, 4);
    std::vector<IntTuple> shape, stride;
    for (int i = 0; i < n; ++i) {
      shape.push_back(IntTuple::integer(*rc::gen::inRange<int64_t>(1, 5)));
      stride.push_back(IntTuple::integer(*rc::gen::inRange<int64_t>(0, 7)));
    }
    return Layout(IntTuple::tuple(shape), IntTuple::tuple(stride));
  });
}

// Injective power-of-two layouts whose modes occupy disjoint bit ranges of the offset.
rc::Gen<Layout> gen_bit_disjoint() {
  return rc::gen::exec([] {
    const int n = *rc::gen::inRange(1, 4);
    std::vector<int> bits(static_cast<size_t>(n)), order(static_cast<size_t>(n));
    for (auto& b : bits) b = *rc::gen::inRange(0, 3);
    for (int i = 0; i < n; ++i) order[static_cast<size_t>(i)] = i;
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[*rc::gen::inRange<size_t>(0, i)]);
    std::vector<int64_t> stride(static_cast<size_t>(n));
    int at = 0;
    for (int k : order) {
      at += *rc::gen::inRange(0, 2);  // an optional gap
      stride[static_cast<size_t>(k)] = int64_t{1} << at;
      at += bits[static_cast<size_t>(k)];
    }
    std::vector<IntTuple> sh, st;
    for (int i = 0; i < n; ++i) {
      sh.push_back(IntTuple::integer(int64_t{1} << bits[static_cast<size_t>(i)]));
      st.push_back(IntTuple::integer(stride[static_cast<size_t>(i)]));
    }
    return Layout(IntTuple::tuple(sh), IntTuple::tuple(st));
  });
}

// Power-of-two layouts: composition never fails on them.
rc::Gen<Layout> gen_pow2(int max_modes, int max_log) {
  return rc::gen::exec([=] {
    const int n = *rc::gen::inRange(1, max_modes + 1);
    std::vector<IntTuple> shape, stride;
    for (int i = 0; i < n; ++i) {
      shape.push_back(IntTuple::integer(int64_t{1} << *rc::gen::inRange(0, max_log + 1)));
      stride.push_back(IntTuple::integer(int64_t{1} << *rc::gen::inRange(0, 7)));
    }
    return Layout(IntTuple::tuple(shape), IntTuple::tuple(stride));
  });
}

RC_GTEST_PROP(LayoutProp, CoalescePreservesTheFunction, ()) {
  const Layout l = *gen_layout();
  const Layout c = coalesce(l);
  RC_ASSERT(c.size() == l.size());
  RC_ASSERT(c.flat_modes().size() <= l.flat_modes().size());
  for (int64_t i = 0; i < l.static_size(); ++i) RC_ASSERT(c.offset(i) == l.offset(i));
}

// Composition is function composition when B's modes cannot carry into each other: here B is
// injective with its modes on disjoint bit ranges and A has power-of-two extents.
RC_GTEST_PROP(LayoutProp, CompositionIsFunctionComposition, ()) {
  const Layout a = *gen_pow2(4, 3);
  const Layout b = *gen_bit_disjoint();
  RC_PRE(b.cosize() <= a.static_size());
  const Layout r = composition(a, b);
  RC_ASSERT(r.size() == b.size());
  for (int64_t i = 0; i < b.static_size(); ++i) RC_ASSERT(r.offset(i) == a.offset(b.offset(i)));
}

// In general composition distributes over B's modes: mode j of the result is A o (mode j of B), and
// each of those is function composition whenever the divisibility conditions hold.
RC_GTEST_PROP(LayoutProp, CompositionComposesModeByMode, ()) {
  const Layout a = *gen_compact();
  const Layout b = *gen_small();
  if (b.cosize() > a.static_size()) return;
  Layout r;
  try {
    r = composition(a, b);
  } catch (const LayoutError&) {
    return;  // a stride or extent of b does not divide a's modes
  }
  RC_ASSERT(r.rank() == b.rank());
  for (size_t j = 0; j < b.rank(); ++j) {
    const Layout bj = b.mode(j), rj = r.mode(j);
    for (int64_t c = 0; c < bj.static_size(); ++c) RC_ASSERT(rj.offset(c) == a.offset(bj.offset(c)));
  }
}

RC_GTEST_PROP(LayoutProp, SwizzleIsABijection, ()) {
  const int b = *rc::gen::inRange(0, 4);
  const int m = *rc::gen::inRange(0, 5);
  const int s_abs = *rc::gen::inRange(std::max(b, 1), 6);
  const int s = *rc::gen::arbitrary<bool>() ? s_abs : -s_abs;
  const Swizzle sw = Swizzle::make(b, m, s);
  const int64_t n = int64_t{1} << (b + m + s_abs);
  std::set<int64_t> image;
  for (int64_t x = 0; x < n; ++x) {
    const int64_t y = sw(x);
    RC_ASSERT(y >= 0);
    RC_ASSERT(y < n);
    RC_ASSERT(sw(y) == x);  // an involution
    image.insert(y);
  }
  RC_ASSERT(static_cast<int64_t>(image.size()) == n);
}

RC_GTEST_PROP(LayoutProp, RightInverseOfACompactLayout, ()) {
  const Layout l = *gen_compact();
  const Layout r = right_inverse(l);
  RC_ASSERT(r.size() == l.size());
  for (int64_t i = 0; i < r.static_size(); ++i) RC_ASSERT(l.offset(r.offset(i)) == i);
}

RC_GTEST_PROP(LayoutProp, ComplementCompletesABijection, ()) {
  const Layout l = *gen_compact();
  const int64_t extra = *rc::gen::inRange<int64_t>(1, 4);
  const int64_t m = l.static_size() * extra;
  const Layout full = make_layout({l, complement(l, m)});
  RC_ASSERT(full.static_size() == m);
  std::set<int64_t> seen;
  for (int64_t i = 0; i < m; ++i) seen.insert(full.offset(i));
  RC_ASSERT(static_cast<int64_t>(seen.size()) == m);
  RC_ASSERT(*seen.rbegin() == m - 1);
}

RC_GTEST_PROP(LayoutProp, NotationRoundTrips, ()) {
  const Layout l = *gen_layout();
  RC_ASSERT(parse_layout(l.str()) == l);
}

}  // namespace
