#!/usr/bin/env python3
"""Writes the conformance corpus tests/conformance/{sm_90a,sm_100a}/*.case.json + *.ptx.

Every kernel here is our own handwritten PTX. Each case is small (one or a few CTAs) and fast, with
random operands drawn by the case's random initialisers (fixed seeds, so a capture is reproducible).
Cases whose expected outcome on hardware is a hang say so with "expect": "hang".
Run: python3 scripts/gen_conformance.py  (then commit the generated files).
"""
import json, os, sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "conformance")
TARGETS = ["sm_90a", "sm_100a"]

HEAD = ".version 8.7\n.target {target}\n.address_size 64\n"

# PTX fragments several kernels share.
# %r4 = the thread's index in the grid (x only).
GLOBAL_INDEX = """  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r4, %r2, %r3, %r1;
"""

# With %r1 = tid.x: %r5 = a[tid] (u32), %rd4 = 4 * tid, %rd5 = &a[tid], %rd2 = out, for kernels
# (.param .u64 pa, .param .u64 pout).
LOAD_A_OF_TID = """  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pout];
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.u32 %r5, [%rd5];
"""


def elementwise_operands(elem_bytes):
    """GLOBAL_INDEX, then %rd5 / %rd6 = the addresses of a[%r4] / b[%r4] (elements of elem_bytes) and
    %rd3 = out, for kernels (.param .u64 pa, .param .u64 pb, .param .u64 pout)."""
    return GLOBAL_INDEX + f"""  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pout];
  mul.wide.u32 %rd4, %r4, {elem_bytes};
  add.s64 %rd5, %rd1, %rd4;
  add.s64 %rd6, %rd2, %rd4;
"""


# Loads a[tid], b[tid] (u32) and stores NOUT results to out[tid*NOUT + k].
SCALAR_INT = r"""
.visible .entry scalar_int(.param .u64 pa, .param .u64 pb, .param .u64 pout)
{
  .reg .b32 %r<40>;
  .reg .b64 %rd<10>;
  .reg .pred %p<4>;
""" + elementwise_operands(4) + r"""  ld.global.u32 %r5, [%rd5];
  ld.global.u32 %r6, [%rd6];
  mul.wide.u32 %rd7, %r4, 64;
  add.s64 %rd8, %rd3, %rd7;
  add.u32 %r10, %r5, %r6;
  sub.u32 %r11, %r5, %r6;
  mul.hi.u32 %r12, %r5, %r6;
  mad.lo.u32 %r13, %r5, %r6, %r4;
  shf.l.wrap.b32 %r14, %r5, %r6, %r6;
  lop3.b32 %r15, %r5, %r6, %r4, 0x96;
  prmt.b32 %r16, %r5, %r6, 0x5140;
  bfe.u32 %r17, %r5, 3, 9;
  bfi.b32 %r18, %r5, %r6, 5, 11;
  popc.b32 %r19, %r5;
  clz.b32 %r20, %r6;
  brev.b32 %r21, %r5;
  min.s32 %r22, %r5, %r6;
  mul24.lo.s32 %r23, %r5, %r6;
  sad.u32 %r24, %r5, %r6, %r4;
  setp.lt.s32 %p1, %r5, %r6;
  selp.u32 %r25, %r5, %r6, %p1;
  st.global.v4.u32 [%rd8], {%r10, %r11, %r12, %r13};
  st.global.v4.u32 [%rd8+16], {%r14, %r15, %r16, %r17};
  st.global.v4.u32 [%rd8+32], {%r18, %r19, %r20, %r21};
  st.global.v4.u32 [%rd8+48], {%r22, %r23, %r24, %r25};
  ret;
}
"""

SCALAR_FLOAT = r"""
.visible .entry scalar_float(.param .u64 pa, .param .u64 pb, .param .u64 pout)
{
  .reg .b32 %r<10>;
  .reg .f32 %f<40>;
  .reg .b16 %h<4>;
  .reg .b64 %rd<10>;
""" + elementwise_operands(4) + r"""  ld.global.f32 %f1, [%rd5];
  ld.global.f32 %f2, [%rd6];
  mul.wide.u32 %rd7, %r4, 48;
  add.s64 %rd8, %rd3, %rd7;
  fma.rn.f32 %f10, %f1, %f2, %f1;
  add.rz.f32 %f11, %f1, %f2;
  mul.rm.f32 %f12, %f1, %f2;
  div.rn.f32 %f13, %f1, %f2;
  abs.f32 %f20, %f1;
  sqrt.rn.f32 %f14, %f20;
  min.f32 %f15, %f1, %f2;
  max.NaN.f32 %f16, %f1, %f2;
  sub.rp.f32 %f17, %f1, %f2;
  rcp.rn.f32 %f18, %f2;
  fma.rn.sat.f32 %f19, %f1, %f2, %f2;
  cvt.rn.f16.f32 %h1, %f1;
  cvt.rn.bf16.f32 %h2, %f2;
  mov.b32 %r5, {%h1, %h2};
  cvt.rni.s32.f32 %r6, %f13;
  st.global.v4.f32 [%rd8], {%f10, %f11, %f12, %f13};
  st.global.v4.f32 [%rd8+16], {%f14, %f15, %f16, %f17};
  st.global.v2.f32 [%rd8+32], {%f18, %f19};
  st.global.v2.u32 [%rd8+40], {%r5, %r6};
  ret;
}
"""

# f64 and packed half arithmetic and conversions between them.
SCALAR_WIDE_HALF = r"""
.visible .entry scalar_f64_f16x2(.param .u64 pa, .param .u64 pb, .param .u64 pout)
{
  .reg .b32 %r<20>;
  .reg .f64 %fd<20>;
  .reg .f32 %f<4>;
  .reg .b16 %rs<4>;
  .reg .b64 %rd<12>;
""" + elementwise_operands(8) + r"""  ld.global.f64 %fd1, [%rd5];
  ld.global.f64 %fd2, [%rd6];
  ld.global.v2.b32 {%r5, %r6}, [%rd5];
  ld.global.v2.b32 {%r7, %r8}, [%rd6];
  mul.wide.u32 %rd7, %r4, 64;
  add.s64 %rd8, %rd3, %rd7;
  fma.rn.f64 %fd3, %fd1, %fd2, %fd1;
  div.rn.f64 %fd4, %fd1, %fd2;
  abs.f64 %fd9, %fd1;
  sqrt.rn.f64 %fd5, %fd9;
  add.rm.f64 %fd6, %fd1, %fd2;
  cvt.rn.f32.f64 %f1, %fd4;
  cvt.rzi.s64.f64 %rd9, %fd6;
  fma.rn.f16x2 %r10, %r5, %r7, %r6;
  mul.rn.bf16x2 %r11, %r6, %r8;
  min.NaN.f16x2 %r12, %r5, %r8;
  cvt.rn.f16x2.f32 %r13, %f1, %f1;
  cvt.rn.satfinite.e4m3x2.f16x2 %rs1, %r10;
  cvt.u32.u16 %r14, %rs1;
  st.global.v2.f64 [%rd8], {%fd3, %fd4};
  st.global.v2.f64 [%rd8+16], {%fd5, %fd6};
  st.global.u64 [%rd8+32], %rd9;
  st.global.f32 [%rd8+40], %f1;
  st.global.u32 [%rd8+44], %r14;
  st.global.v4.b32 [%rd8+48], {%r10, %r11, %r12, %r13};
  ret;
}
"""

# Integer atomics (any order gives the same result) and exact float adds of 1.0.
ATOMICS = r"""
.visible .entry atomics(.param .u64 pa, .param .u64 pctr, .param .u64 pold)
{
  .reg .b32 %r<20>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<10>;
""" + GLOBAL_INDEX + r"""  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pctr];
  mul.wide.u32 %rd4, %r4, 4;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.u32 %r5, [%rd5];
  red.global.add.u32 [%rd2], 1;
  atom.global.max.s32 %r6, [%rd2+4], %r5;
  atom.global.min.u32 %r7, [%rd2+8], %r5;
  red.global.xor.b32 [%rd2+12], %r5;
  red.global.or.b32 [%rd2+16], %r5;
  and.b32 %r8, %r5, 0xff;
  red.global.add.u64 [%rd2+24], 1;
  mov.f32 %f1, 0f3F800000;
  red.global.add.f32 [%rd2+32], %f1;
  and.b32 %r9, %r4, 63;
  mul.wide.u32 %rd6, %r9, 4;
  add.s64 %rd7, %rd2, %rd6;
  red.global.add.u32 [%rd7+64], %r8;
  ret;
}
"""

WARP = r"""
.visible .entry warp_collectives(.param .u64 pa, .param .u64 pout)
{
  .reg .b32 %r<30>;
  .reg .b64 %rd<10>;
  .reg .pred %p<4>;
  mov.u32 %r1, %tid.x;
""" + LOAD_A_OF_TID + r"""  shfl.sync.bfly.b32 %r10, %r5, 5, 31, -1;
  shfl.sync.idx.b32 %r11, %r5, 7, 31, -1;
  shfl.sync.up.b32 %r12|%p1, %r5, 3, 0, -1;
  shfl.sync.down.b32 %r13, %r5, 9, 31, -1;
  and.b32 %r6, %r5, 1;
  setp.eq.u32 %p2, %r6, 1;
  vote.sync.ballot.b32 %r14, %p2, -1;
  redux.sync.add.u32 %r15, %r5, -1;
  redux.sync.max.s32 %r16, %r5, -1;
  and.b32 %r7, %r5, 3;
  match.any.sync.b32 %r17, %r7, -1;
  selp.u32 %r18, 1, 0, %p1;
  mul.wide.u32 %rd6, %r1, 48;
  add.s64 %rd7, %rd2, %rd6;
  st.global.v4.u32 [%rd7], {%r10, %r11, %r12, %r13};
  st.global.v4.u32 [%rd7+16], {%r14, %r15, %r16, %r17};
  st.global.u32 [%rd7+32], %r18;
  ret;
}
"""

BARRIER = r"""
.visible .entry cta_barrier(.param .u64 pa, .param .u64 pout)
{
  .shared .align 4 .b32 s[256];
  .reg .pred %p<2>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  mov.u32 %r1, %tid.x;
""" + LOAD_A_OF_TID + r"""  mov.u32 %r2, s;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  st.shared.u32 [%r4], %r5;
  bar.sync 0;
  sub.u32 %r6, 255, %r1;
  shl.b32 %r7, %r6, 2;
  add.u32 %r8, %r2, %r7;
  ld.shared.u32 %r9, [%r8];
  and.b32 %r10, %r9, 1;
  setp.eq.u32 %p1, %r10, 1;
  bar.red.popc.u32 %r11, 0, %p1;
  add.u32 %r12, %r9, %r11;
  add.s64 %rd6, %rd2, %rd4;
  st.global.u32 [%rd6], %r12;
  ret;
}
"""

# Two phases of an mbarrier with every thread arriving; the arrive state tokens feed test_wait.
# The pending count of a token depends on the order in which the four warps arrive, which is not
# deterministic; an H200 arrives once per warp-instruction for all its lanes (every lane's token
# shows the count before the warp's 32 arrivals), so the count modulo 32 is 0 on every run.
MBARRIER = r"""
.visible .entry mbarrier_phases(.param .u64 pa, .param .u64 pout)
{
  .shared .align 8 .b64 bar;
  .shared .align 4 .b32 s[128];
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .reg .pred %p<6>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, bar;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $init_done;
  mbarrier.init.shared::cta.b64 [%r2], 128;
$init_done:
  bar.sync 0;
""" + LOAD_A_OF_TID + r"""  mov.u32 %r3, s;
  shl.b32 %r4, %r1, 2;
  add.u32 %r6, %r3, %r4;
  st.shared.u32 [%r6], %r5;
  mbarrier.arrive.shared::cta.b64 %rd6, [%r2];
$w0:
  mbarrier.test_wait.shared::cta.b64 %p2, [%r2], %rd6;
  @!%p2 bra $w0;
  xor.b32 %r7, %r1, 127;
  shl.b32 %r8, %r7, 2;
  add.u32 %r9, %r3, %r8;
  ld.shared.u32 %r10, [%r9];
  mbarrier.arrive.shared::cta.b64 %rd7, [%r2];
$w1:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r2], 1;
  @!%p3 bra $w1;
  mbarrier.pending_count.b64 %r11, %rd7;
  and.b32 %r11, %r11, 31;
  add.s64 %rd8, %rd2, %rd4;
  add.u32 %r12, %r10, %r11;
  st.global.u32 [%rd8], %r12;
  ret;
}
"""

# Lanes of one warp-instruction arrive together: odd and even lanes take different branches (16
# arrivals each), and each branch arrives three ways on its own mbarrier (plain, with a count of 2,
# and with expect_tx 0). Every lane stores each token's pending count modulo 16 (modulo 32 for the
# count of 2), which is 0 when the 16 lanes' arrivals form one operation whatever order the warps
# and branches take (H200), and not when the lanes arrive one by one.
MBARRIER_WARP = r"""
.visible .entry mbarrier_warp_arrive(.param .u64 pa, .param .u64 pout)
{
  .shared .align 8 .b64 bars[3];
  .reg .b32 %r<24>;
  .reg .b64 %rd<16>;
  .reg .pred %p<6>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, bars;
  add.u32 %r3, %r2, 8;
  add.u32 %r4, %r2, 16;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $init_done;
  mbarrier.init.shared::cta.b64 [%r2], 128;
  mbarrier.init.shared::cta.b64 [%r3], 256;
  mbarrier.init.shared::cta.b64 [%r4], 128;
$init_done:
  bar.sync 0;
  and.b32 %r5, %r1, 1;
  setp.eq.u32 %p2, %r5, 1;
  @!%p2 bra $even;
  mbarrier.arrive.shared::cta.b64 %rd1, [%r2];
  mbarrier.arrive.shared::cta.b64 %rd2, [%r3], 2;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [%r4], 0;
  bra.uni $join;
$even:
  mbarrier.arrive.shared::cta.b64 %rd1, [%r2];
  mbarrier.arrive.shared::cta.b64 %rd2, [%r3], 2;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [%r4], 0;
$join:
  mbarrier.pending_count.b64 %r6, %rd1;
  mbarrier.pending_count.b64 %r7, %rd2;
  mbarrier.pending_count.b64 %r8, %rd3;
  and.b32 %r6, %r6, 15;
  and.b32 %r7, %r7, 31;
  and.b32 %r8, %r8, 15;
  shl.b32 %r7, %r7, 8;
  shl.b32 %r8, %r8, 16;
  or.b32 %r9, %r6, %r7;
  or.b32 %r9, %r9, %r8;
  ld.param.u64 %rd4, [pout];
  cvta.to.global.u64 %rd5, %rd4;
  mul.wide.u32 %rd6, %r1, 4;
  add.s64 %rd7, %rd5, %rd6;
  st.global.u32 [%rd7], %r9;
  ret;
}
"""

# The end of the TMA load kernels: every thread waits for phase 0 of the mbarrier at %r5, then the
# CTA copies the SMEM bytes of shared memory at %r2 to `out`, four bytes per thread per step.
TMA_WAIT_COPY_OUT = r"""$wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r5], 0;
  @!%p3 bra $wait;
  ld.param.u64 %rd3, [out];
  cvta.to.global.u64 %rd4, %rd3;
  shl.b32 %r3, %r1, 2;
$copy:
  setp.ge.u32 %p1, %r3, SMEM;
  @%p1 bra $done;
  add.u32 %r4, %r2, %r3;
  ld.shared.u32 %r15, [%r4];
  cvt.u64.u32 %rd5, %r3;
  add.s64 %rd6, %rd4, %rd5;
  st.global.u32 [%rd6], %r15;
  add.u32 %r3, %r3, 512;
  bra $copy;
$done:
  ret;
}
"""

# TMA loads beyond the 2-D tile: a rank-3 tile (interleaved layouts need rank >= 3) and a rank-4
# im2col load with two offsets. Thread 0 issues, everyone waits and copies shared memory out.
TMA_LOAD_ND = r"""
.visible .entry tma_load_nd(.param .align 64 .b8 tmap[128], .param .u64 out, .param .u32 c0, .param .u32 c1,
                            .param .u32 c2, .param .u32 c3, .param .u32 o0, .param .u32 o1)
{
  .shared .align 1024 .b8 buf[SMEM];
  .shared .align 8 .b64 bar;
  .reg .b16 %h<4>;
  .reg .b32 %r<40>;
  .reg .b64 %rd<20>;
  .reg .pred %p<5>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, buf;
  mov.u32 %r5, bar;
  setp.ne.u32 %p2, %r1, 0;
  @%p2 bra $init_done;
  mbarrier.init.shared::cta.b64 [%r5], 1;
  fence.mbarrier_init.release.cluster;
$init_done:
  bar.sync 0;
  @%p2 bra $wait;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r5], SMEM;
  mov.u64 %rd1, tmap;
  cvta.param.u64 %rd2, %rd1;
  ld.param.u32 %r10, [c0];
  ld.param.u32 %r11, [c1];
  ld.param.u32 %r12, [c2];
  ld.param.u32 %r13, [c3];
  ld.param.u32 %r14, [o0];
  ld.param.u32 %r16, [o1];
  cvt.u16.u32 %h1, %r14;
  cvt.u16.u32 %h2, %r16;
  ISSUE
""" + TMA_WAIT_COPY_OUT
TMA_ISSUE_3D = ("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
                "[%r2], [%rd2, {%r10, %r11, %r12}], [%r5];")
TMA_ISSUE_IM2COL = ("cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes "
                    "[%r2], [%rd2, {%r10, %r11, %r12, %r13}], [%r5], {%h1, %h2};")

# TMA stores and reductions: every thread copies `src` into shared memory, a proxy fence makes it
# visible to the async proxy, thread 0 writes the 2-D box at (c0, c1) into the tensor (which may
# hang over its edges) and waits for the bulk group; the tensor buffer is the output.
TMA_STORE = r"""
.visible .entry tma_store(.param .align 64 .b8 tmap[128], .param .u64 src, .param .u32 c0, .param .u32 c1)
{
  .shared .align 1024 .b8 buf[SMEM];
  .reg .b32 %r<40>;
  .reg .b64 %rd<20>;
  .reg .pred %p<5>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, buf;
  ld.param.u64 %rd3, [src];
  cvta.to.global.u64 %rd4, %rd3;
  shl.b32 %r3, %r1, 2;
$copy:
  setp.ge.u32 %p1, %r3, SMEM;
  @%p1 bra $copied;
  cvt.u64.u32 %rd5, %r3;
  add.s64 %rd6, %rd4, %rd5;
  ld.global.u32 %r15, [%rd6];
  add.u32 %r4, %r2, %r3;
  st.shared.u32 [%r4], %r15;
  add.u32 %r3, %r3, 512;
  bra $copy;
$copied:
  fence.proxy.async.shared::cta;
  bar.sync 0;
  setp.ne.u32 %p2, %r1, 0;
  @%p2 bra $done;
  mov.u64 %rd1, tmap;
  cvta.param.u64 %rd2, %rd1;
  ld.param.u32 %r10, [c0];
  ld.param.u32 %r11, [c1];
  ISSUE
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
$done:
  ret;
}
"""

# One thread loads a BOXxBOX tile of bf16 with TMA into swizzled shared memory; everyone waits and
# copies all of shared memory out. The expect_tx byte count is a parameter so the same kernel
# hangs by design when it is wrong.
TMA = r"""
.visible .entry tma_tile(.param .align 64 .b8 tmap[128], .param .u64 out, .param .u32 tx,
                         .param .u32 c0, .param .u32 c1)
{
  .shared .align 1024 .b8 buf[SMEM];
  .shared .align 8 .b64 bar;
  .reg .b32 %r<40>;
  .reg .b64 %rd<20>;
  .reg .pred %p<5>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, buf;
  mov.u32 %r5, bar;
  setp.ne.u32 %p2, %r1, 0;
  @%p2 bra $init_done;
  mbarrier.init.shared::cta.b64 [%r5], 1;
  fence.mbarrier_init.release.cluster;
$init_done:
  bar.sync 0;
  @%p2 bra $wait;
  ld.param.u32 %r6, [tx];
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r5], %r6;
  mov.u64 %rd1, tmap;
  cvta.param.u64 %rd2, %rd1;
  ld.param.u32 %r10, [c0];
  ld.param.u32 %r11, [c1];
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r2], [%rd2, {%r10, %r11}], [%r5];
""" + TMA_WAIT_COPY_OUT

# Bulk copy global -> shared (mbarrier completion), add 1 to every word, bulk copy back
# shared -> global (bulk async-group).
BULK = r"""
.visible .entry bulk_copy(.param .u64 pin, .param .u64 pout)
{
  .shared .align 128 .b8 buf[4096];
  .shared .align 8 .b64 bar;
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .reg .pred %p<4>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, buf;
  mov.u32 %r3, bar;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $init_done;
  mbarrier.init.shared::cta.b64 [%r3], 1;
$init_done:
  bar.sync 0;
  @%p1 bra $wait;
  ld.param.u64 %rd1, [pin];
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 4096;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd1], 4096, [%r3];
$wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r3], 0;
  @!%p2 bra $wait;
  shl.b32 %r4, %r1, 2;
$loop:
  setp.ge.u32 %p3, %r4, 4096;
  @%p3 bra $loop_done;
  add.u32 %r5, %r2, %r4;
  ld.shared.u32 %r6, [%r5];
  add.u32 %r6, %r6, 1;
  st.shared.u32 [%r5], %r6;
  add.u32 %r4, %r4, 512;
  bra $loop;
$loop_done:
  fence.proxy.async.shared::cta;
  bar.sync 0;
  @%p1 bra $done;
  ld.param.u64 %rd2, [pout];
  cp.async.bulk.global.shared::cta.bulk_group [%rd2], [%r2], 4096;
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
$done:
  ret;
}
"""

# Each thread's fragments come straight from buffers indexed by lane: the instruction defines what
# they mean, and ptxsim and the GPU must compute the same function of those bits.
def mma_sync_kernel(name, shape, dtype):
    """One warp: each thread's A (16 bytes), B (8 bytes) and C (16 bytes) fragments from `pa` / `pb` /
    `pc` by lane, one mma.sync SHAPE.row.col.f32.DTYPE.DTYPE.f32, D (16 bytes a lane) to `pd`."""
    return r"""
.visible .entry NAME(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)
{
  .reg .b32 %r<20>;
  .reg .f32 %f<20>;
  .reg .b64 %rd<20>;
  mov.u32 %r1, %tid.x;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pc];
  ld.param.u64 %rd4, [pd];
  mul.wide.u32 %rd5, %r1, 16;
  mul.wide.u32 %rd6, %r1, 8;
  add.s64 %rd7, %rd1, %rd5;
  add.s64 %rd8, %rd2, %rd6;
  add.s64 %rd9, %rd3, %rd5;
  add.s64 %rd10, %rd4, %rd5;
  ld.global.v4.b32 {%r2, %r3, %r4, %r5}, [%rd7];
  ld.global.v2.b32 {%r6, %r7}, [%rd8];
  ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd9];
  mma.sync.aligned.SHAPE.row.col.f32.DTYPE.DTYPE.f32 {%f5, %f6, %f7, %f8}, {%r2, %r3, %r4, %r5}, {%r6, %r7}, {%f1, %f2, %f3, %f4};
  st.global.v4.f32 [%rd10], {%f5, %f6, %f7, %f8};
  ret;
}
""".replace("NAME", name).replace("SHAPE", shape).replace("DTYPE", dtype)


MMA = mma_sync_kernel("mma_f16", "m16n8k16", "f16")

LDMATRIX = r"""
.visible .entry ldstmatrix(.param .u64 pa, .param .u64 pout)
{
  .shared .align 16 .b8 s[1024];
  .shared .align 16 .b8 t[1024];
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  mov.u32 %r1, %tid.x;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pout];
  mov.u32 %r2, s;
  mov.u32 %r12, t;
  shl.b32 %r3, %r1, 5;
  cvt.u64.u32 %rd3, %r3;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.v4.b32 {%r4, %r5, %r6, %r7}, [%rd4];
  ld.global.v4.b32 {%r8, %r9, %r10, %r11}, [%rd4+16];
  add.u32 %r13, %r2, %r3;
  st.shared.v4.b32 [%r13], {%r4, %r5, %r6, %r7};
  st.shared.v4.b32 [%r13+16], {%r8, %r9, %r10, %r11};
  bar.warp.sync -1;
  shl.b32 %r14, %r1, 4;
  add.u32 %r15, %r2, %r14;
  ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r4, %r5, %r6, %r7}, [%r15];
  add.u32 %r16, %r15, 512;
  ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r8, %r9}, [%r16];
  add.u32 %r17, %r12, %r14;
  stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r17], {%r4, %r5, %r6, %r7};
  add.u32 %r18, %r17, 512;
  stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%r18], {%r8, %r9};
  bar.warp.sync -1;
  add.u32 %r19, %r12, %r3;
  ld.shared.v4.b32 {%r4, %r5, %r6, %r7}, [%r19];
  ld.shared.v4.b32 {%r8, %r9, %r10, %r11}, [%r19+16];
  add.s64 %rd5, %rd2, %rd3;
  st.global.v4.b32 [%rd5], {%r4, %r5, %r6, %r7};
  st.global.v4.b32 [%rd5+16], {%r8, %r9, %r10, %r11};
  ret;
}
"""

# tensormap.replace: one warp copies the template map (pointing at buffer a) into shared memory,
# points it at buffer b, publishes it to global memory with cp_fenceproxy, acquires it, and loads
# a 16x16 u32 tile through it: the output must be b's tile.
TMAP_REPLACE = r"""
.visible .entry tensormap_replace(.param .align 64 .b8 tmap[128], .param .u64 gmap, .param .u64 newaddr,
                                  .param .u64 out)
{
  .shared .align 128 .b8 smap[128];
  .shared .align 1024 .b8 buf[1024];
  .shared .align 8 .b64 bar;
  .reg .b32 %r<20>;
  .reg .b64 %rd<20>;
  .reg .pred %p<4>;
  mov.u32 %r1, %laneid;
  shl.b32 %r2, %r1, 2;
  mov.u64 %rd1, tmap;
  cvta.param.u64 %rd2, %rd1;
  cvt.u64.u32 %rd3, %r2;
  add.s64 %rd4, %rd2, %rd3;
  ld.u32 %r3, [%rd4];
  mov.u32 %r4, smap;
  add.u32 %r5, %r4, %r2;
  st.shared.u32 [%r5], %r3;
  bar.warp.sync 0xffffffff;
  ld.param.u64 %rd5, [gmap];
  ld.param.u64 %rd6, [newaddr];
  tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%r4], %rd6;
  tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd5], [%r4], 128;
  fence.proxy.tensormap::generic.acquire.gpu [%rd5], 128;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $done;
  mov.u32 %r6, bar;
  mov.u32 %r7, buf;
  mbarrier.init.shared::cta.b64 [%r6], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r6], 1024;
  mov.u32 %r8, 0;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r7], [%rd5, {%r8, %r8}], [%r6];
$wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r6], 0;
  @!%p2 bra $wait;
  ld.param.u64 %rd8, [out];
  mov.u32 %r9, 0;
$copy:
  add.u32 %r10, %r7, %r9;
  ld.shared.u32 %r11, [%r10];
  cvt.u64.u32 %rd9, %r9;
  add.s64 %rd10, %rd8, %rd9;
  st.global.u32 [%rd10], %r11;
  add.u32 %r9, %r9, 4;
  setp.lt.u32 %p3, %r9, 1024;
  @%p3 bra $copy;
$done:
  ret;
}
"""

# Hang by design: the barrier expects two arrivals, only one thread arrives.
MISSING_ARRIVE = r"""
.visible .entry missing_arrive(.param .u64 pout)
{
  .shared .align 8 .b64 bar;
  .reg .b32 %r<10>;
  .reg .b64 %rd<4>;
  .reg .pred %p<4>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, bar;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $done;
  mbarrier.init.shared::cta.b64 [%r2], 2;
  mbarrier.arrive.shared::cta.b64 %rd1, [%r2];
$wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;
  @!%p2 bra $wait;
  ld.param.u64 %rd2, [pout];
  st.global.u32 [%rd2], 1;
$done:
  ret;
}
"""


# Clusters of 2 CTAs (64 threads each): every thread writes a[gid] * 3 + rank to its CTA's buf,
# the cluster barrier publishes it, each thread reads the peer CTA's buf[tid] through mapa +
# ld.shared::cluster and stores it; a second cluster barrier keeps the peer's shared memory alive.
CLUSTER_BARRIER = r"""
.visible .entry cluster_barrier(.param .u64 pa, .param .u64 pout)
{
  .shared .align 4 .b32 buf[64];
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mad.lo.u32 %r3, %r2, 64, %r1;
  mov.u32 %r4, %cluster_ctarank;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pout];
  mul.wide.u32 %rd3, %r3, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r5, [%rd4];
  mad.lo.u32 %r6, %r5, 3, %r4;
  mov.u32 %r7, buf;
  shl.b32 %r8, %r1, 2;
  add.u32 %r9, %r7, %r8;
  st.shared.u32 [%r9], %r6;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  xor.b32 %r10, %r4, 1;
  mapa.shared::cluster.u32 %r11, %r9, %r10;
  ld.shared::cluster.u32 %r12, [%r11];
  add.s64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r12;
  barrier.cluster.arrive.relaxed.aligned;
  barrier.cluster.wait.aligned;
  ret;
}
"""

# Ampere cp.async: each of 128 threads copies 16 bytes (cg) and 8 bytes of which only 4 come from
# global (src-size 4: the rest is zero-filled) into shared memory in two commit groups, waits,
# synchronises, and stores what the mirrored thread (127 - tid) copied.
CP_ASYNC = r"""
.visible .entry cp_async(.param .u64 pin, .param .u64 pout)
{
  .shared .align 16 .b8 buf[4096];
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  mov.u32 %r1, %tid.x;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd1, %rd3;
  mov.u32 %r2, buf;
  shl.b32 %r3, %r1, 4;
  add.u32 %r4, %r2, %r3;
  cp.async.cg.shared.global [%r4], [%rd4], 16;
  cp.async.commit_group;
  add.s64 %rd5, %rd4, 2048;
  cp.async.ca.shared.global [%r4+2048], [%rd5], 8, 4;
  cp.async.commit_group;
  cp.async.wait_group 1;
  cp.async.wait_all;
  bar.sync 0;
  sub.u32 %r5, 127, %r1;
  shl.b32 %r6, %r5, 4;
  add.u32 %r7, %r2, %r6;
  ld.shared.v4.u32 {%r10, %r11, %r12, %r13}, [%r7];
  ld.shared.v2.u32 {%r14, %r15}, [%r7+2048];
  mul.wide.u32 %rd6, %r1, 32;
  add.s64 %rd7, %rd2, %rd6;
  st.global.v4.u32 [%rd7], {%r10, %r11, %r12, %r13};
  st.global.v2.u32 [%rd7+16], {%r14, %r15};
  ret;
}
"""

# st.async / red.async in a 2-CTA cluster (32 threads each): CTA 1 fills its buf from `init`,
# arms its mbarrier for 32 * (16 + 4) bytes and meets CTA 0 at the cluster barrier; CTA 0's lanes
# st.async 16 bytes (v4.b32) and red.async.add.u32 4 bytes into CTA 1's slot of the lane; CTA 1
# waits for the phase and stores its buf.
ST_ASYNC = r"""
.visible .entry st_red_async(.param .u64 pvals, .param .u64 pinit, .param .u64 pout)
{
  .shared .align 16 .b8 buf[1024];
  .shared .align 8 .b64 full;
  .reg .b32 %r<40>;
  .reg .b64 %rd<20>;
  .reg .pred %p<5>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, full;
  mov.u32 %r7, buf;
  mul.wide.u32 %rd4, %r1, 32;
  cvt.u32.u64 %r5, %rd4;
  add.u32 %r8, %r7, %r5;
  setp.eq.u32 %p1, %r1, 0;
  setp.ne.u32 %p4, %r2, 0;
  @%p4 bra $cta1;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  ld.param.u64 %rd1, [pvals];
  add.s64 %rd5, %rd1, %rd4;
  ld.global.v4.b32 {%r10, %r11, %r12, %r13}, [%rd5];
  ld.global.u32 %r14, [%rd5+16];
  mov.u32 %r9, 1;
  mapa.shared::cluster.u32 %r20, %r8, %r9;
  mapa.shared::cluster.u32 %r21, %r3, %r9;
  st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%r20], {%r10, %r11, %r12, %r13}, [%r21];
  red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r20+16], %r14, [%r21];
  barrier.cluster.arrive.relaxed.aligned;
  barrier.cluster.wait.aligned;
  ret;
$cta1:
  ld.param.u64 %rd2, [pinit];
  add.s64 %rd6, %rd2, %rd4;
  ld.global.v4.b32 {%r10, %r11, %r12, %r13}, [%rd6];
  ld.global.v4.b32 {%r14, %r15, %r16, %r17}, [%rd6+16];
  st.shared.v4.b32 [%r8], {%r10, %r11, %r12, %r13};
  st.shared.v4.b32 [%r8+16], {%r14, %r15, %r16, %r17};
  @%p1 mbarrier.init.shared::cta.b64 [%r3], 1;
  @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 640;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
$wait_full:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r3], 0;
  @!%p3 bra $wait_full;
  ld.shared.v4.b32 {%r10, %r11, %r12, %r13}, [%r8];
  ld.shared.v4.b32 {%r14, %r15, %r16, %r17}, [%r8+16];
  ld.param.u64 %rd3, [pout];
  add.s64 %rd7, %rd3, %rd4;
  st.global.v4.b32 [%rd7], {%r10, %r11, %r12, %r13};
  st.global.v4.b32 [%rd7+16], {%r14, %r15, %r16, %r17};
  barrier.cluster.arrive.relaxed.aligned;
  barrier.cluster.wait.aligned;
  ret;
}
"""


# The pieces of the one-warpgroup wgmma kernels (this one and scripts/gen_tc_edge_cases.py's):
# WGMMA_STAGE copies 256 bytes of B from %rd2 into `bsm` (threads 0-63), fences it for the async proxy,
# syncs, and loads each thread's 16 bytes of A from %rd1 into %a0-%a3 (%rd6 = tid * 16, %r1 = tid);
# WGMMA_B_DESCRIPTOR makes %rd8 the no-swizzle descriptor of `bsm` (LBO 128, SBO 256).
WGMMA_STAGE = r"""  mov.u32 %r3, bsm;
  setp.ge.u32 %p1, %r1, 64;
  @%p1 bra $copied;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd2, %rd4;
  ld.global.u32 %r2, [%rd5];
  shl.b32 %r4, %r1, 2;
  add.u32 %r5, %r3, %r4;
  st.shared.u32 [%r5], %r2;
$copied:
  fence.proxy.async.shared::cta;
  bar.sync 0;
  mul.wide.u32 %rd6, %r1, 16;
  add.s64 %rd7, %rd1, %rd6;
  ld.global.v4.b32 {%a0, %a1, %a2, %a3}, [%rd7];
"""
WGMMA_B_DESCRIPTOR = r"""  and.b32 %r6, %r3, 0x3ffff;
  shr.u32 %r6, %r6, 4;
  cvt.u64.u32 %rd8, %r6;
  or.b64 %rd8, %rd8, 0x0000001000080000;
"""


# sm_90a: one warpgroup computes D = A * B with wgmma.mma_async m64n8k16 f32.f16.f16: A (64x16) in
# registers (each thread's 4 registers straight from `a`, so A's element order is the ISA's register
# fragment), B (8x16) copied from `b` into shared memory and read through a no-swizzle matrix
# descriptor (LBO 128, SBO 256); scale-d false, so C is ignored. Each thread stores its 4 f32.
WGMMA = r"""
.visible .entry wgmma_gemm(.param .u64 pa, .param .u64 pb, .param .u64 pout)
{
  .shared .align 128 .b8 bsm[256];
  .reg .b32 %r<20>;
  .reg .b32 %a<4>;
  .reg .f32 %d<4>;
  .reg .b64 %rd<12>;
  .reg .pred %p<3>;
  mov.u32 %r1, %tid.x;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pout];
""" + WGMMA_STAGE + r"""""" + WGMMA_B_DESCRIPTOR + r"""  mov.f32 %d0, 0f00000000;
  mov.f32 %d1, 0f00000000;
  mov.f32 %d2, 0f00000000;
  mov.f32 %d3, 0f00000000;
  setp.ne.u32 %p2, %r1, %r1;
  wgmma.fence.sync.aligned;
  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%d0, %d1, %d2, %d3}, {%a0, %a1, %a2, %a3}, %rd8, %p2, 1, 1, 0;
  wgmma.commit_group.sync.aligned;
  wgmma.wait_group.sync.aligned 0;
  add.s64 %rd9, %rd3, %rd6;
  st.global.v4.f32 [%rd9], {%d0, %d1, %d2, %d3};
  ret;
}
"""


# The pieces of the one-CTA tcgen05 kernels (this one and scripts/gen_tc_edge_cases.py's):
# TCGEN05_STAGE copies A (4096 bytes from %rd1) and B (512 bytes from %rd2) into `sa` / `sb`, thread 0
# initializes `bar`, warp 0 allocates 32 TMEM columns, and every thread leaves with the TMEM address
# in %r10, %r0 = tid, %r1 = warp, %p6 = (tid != 0), %p7 = (warp != 0).
TCGEN05_STAGE = r"""  mov.u32 %r20, sa;
  mov.u32 %r21, sb;
  mov.u32 %r22, %r0;
$copy_a:
  mul.wide.u32 %rd4, %r22, 4;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.u32 %r23, [%rd5];
  shl.b32 %r24, %r22, 2;
  add.u32 %r25, %r20, %r24;
  st.shared.u32 [%r25], %r23;
  add.u32 %r22, %r22, 128;
  setp.lt.u32 %p1, %r22, 1024;
  @%p1 bra $copy_a;
  mul.wide.u32 %rd4, %r0, 4;
  add.s64 %rd5, %rd2, %rd4;
  ld.global.u32 %r23, [%rd5];
  shl.b32 %r24, %r0, 2;
  add.u32 %r25, %r21, %r24;
  st.shared.u32 [%r25], %r23;
  fence.proxy.async.shared::cta;
  setp.ne.u32 %p6, %r0, 0;
  @%p6 bra $noinit;
  mov.u32 %r26, bar;
  mbarrier.init.shared::cta.b64 [%r26], 1;
$noinit:
  setp.ne.u32 %p7, %r1, 0;
  @%p7 bra $after_alloc;
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [tslot], 32;
  tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
$after_alloc:
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  ld.shared.u32 %r10, [tslot];
"""


def tcgen05_issue(idesc, kind="f16", accumulate=False):
    """Thread 0 issues one tcgen05.mma on no-swizzle K-major descriptors of `sa` / `sb` (LBO 128,
    SBO 256) into TMEM %r10 and commits it to `bar`; every thread waits for phase 0."""
    return r"""  @%p6 bra $wait;
  and.b32 %r30, %r20, 0x3ffff;
  shr.u32 %r30, %r30, 4;
  cvt.u64.u32 %rd10, %r30;
  or.b64 %rd10, %rd10, 0x0000401000080000;
  and.b32 %r31, %r21, 0x3ffff;
  shr.u32 %r31, %r31, 4;
  cvt.u64.u32 %rd11, %r31;
  or.b64 %rd11, %rd11, 0x0000401000080000;
  mov.u32 %r32, {idesc};
  setp.{accumulate_cmp}.u32 %p2, %r0, 0;
  tcgen05.mma.cta_group::1.kind::{kind} [%r10], %rd10, %rd11, %r32, %p2;
  mov.u32 %r26, bar;
  tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r26];
$wait:
  mov.u32 %r26, bar;
  mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r26], 0;
  @!%p5 bra $wait;
  tcgen05.fence::after_thread_sync;
""".format(idesc=idesc, kind=kind, accumulate_cmp="eq" if accumulate else "ne")


# The end of a tcgen05 kernel: each warp loads its 32 lanes x 16 columns of D (%r28: its lane
# quarter's TMEM address) and thread t stores its 64 bytes at %rd3 + %rd6 (%rd6 = 64 t); then the
# allocating warp (%p7 false) frees the 32 columns.
TCGEN05_DRAIN = r"""  tcgen05.ld.sync.aligned.32x32b.x16.b32 {%r40, %r41, %r42, %r43, %r44, %r45, %r46, %r47, %r48, %r49, %r50, %r51, %r52, %r53, %r54, %r55}, [%r28];
  tcgen05.wait::ld.sync.aligned;
  add.s64 %rd7, %rd3, %rd6;
  st.global.v4.u32 [%rd7], {%r40, %r41, %r42, %r43};
  st.global.v4.u32 [%rd7+16], {%r44, %r45, %r46, %r47};
  st.global.v4.u32 [%rd7+32], {%r48, %r49, %r50, %r51};
  st.global.v4.u32 [%rd7+48], {%r52, %r53, %r54, %r55};
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  @%p7 bra $after_dealloc;
  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r10, 32;
$after_dealloc:
  ret;
}
"""

# sm_100a: one CTA of 128 threads computes D = A * B with tcgen05.mma.cta_group::1.kind::f16,
# M 128, N 16, K 16, f16 inputs, f32 accumulator in Tensor Memory. A (128x16) and B (16x16) are
# copied from `a` / `b` into shared memory and read through no-swizzle shared-memory descriptors
# (version 0b001, LBO 128, SBO 256); the instruction descriptor 0x08040010 says D f32, A/B f16,
# K-major, N >> 3 = 2, M >> 4 = 8. Warp 0 allocates 32 TMEM columns; thread 0 issues the MMA
# (enable-input-d false) and commits it to an mbarrier; every warp loads its 32 lanes x 16 columns.
TCGEN05 = r"""
.visible .entry tcgen05_gemm(.param .u64 pa, .param .u64 pb, .param .u64 pout)
{
  .shared .align 1024 .b8 sa[4096];
  .shared .align 1024 .b8 sb[512];
  .shared .align 8 .b64 bar;
  .shared .align 4 .b32 tslot;
  .reg .b32 %r<60>;
  .reg .b64 %rd<20>;
  .reg .pred %p<8>;
  mov.u32 %r0, %tid.x;
  shr.u32 %r1, %r0, 5;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pout];
""" + TCGEN05_STAGE + tcgen05_issue("0x08040010") + r"""  shl.b32 %r27, %r1, 21;
  add.u32 %r28, %r10, %r27;
  mul.wide.u32 %rd6, %r0, 64;
""" + TCGEN05_DRAIN



def rnd(seed, dtype, lo, hi):
    return {"random": {"seed": seed, "dtype": dtype, "min": lo, "max": hi}}


def poisoned(nbytes):
    """An output buffer, filled with 0xcd before the launch so that bytes nobody wrote show."""
    return {"bytes": nbytes, "init": {"fill_u8": 0xcd}}


def ptrs(*buffers):
    """Kernel parameters that are the addresses of the named buffers, in order."""
    return [{"ptr": b} for b in buffers]


def tmap(swizzle, box_inner):
    return {"tensormap": {"buffer": "g", "dtype": "bfloat16", "rank": 2, "dims": [256, 64], "strides": [512],
                          "box": [box_inner, 32], "swizzle": swizzle}}


def cases():
    out = []
    out.append(("scalar_int", SCALAR_INT, {"grid": [2], "block": [128],
        "buffers": {"a": {"bytes": 1024, "init": rnd(11, "u32", 0, 4294967295)},
                    "b": {"bytes": 1024, "init": rnd(12, "u32", 0, 4294967295)},
                    "out": poisoned(16384)},
        "params": ptrs("a", "b", "out"), "outputs": ["out"]}))
    out.append(("scalar_float", SCALAR_FLOAT, {"grid": [2], "block": [128],
        "buffers": {"a": {"bytes": 1024, "init": rnd(21, "f32", -1000, 1000)},
                    "b": {"bytes": 1024, "init": rnd(22, "f32", -2, 2)},
                    "out": poisoned(12288)},
        "params": ptrs("a", "b", "out"), "outputs": ["out"]}))
    # Random bit patterns: NaNs, infinities, subnormals and both zeros all occur.
    out.append(("scalar_float_random_bits", SCALAR_FLOAT, {"grid": [2], "block": [128],
        "buffers": {"a": {"bytes": 1024, "init": rnd(23, "u32", 0, 4294967295)},
                    "b": {"bytes": 1024, "init": rnd(24, "u32", 0, 4294967295)},
                    "out": poisoned(12288)},
        "params": ptrs("a", "b", "out"), "outputs": ["out"]}))
    out.append(("scalar_f64_f16x2", SCALAR_WIDE_HALF, {"grid": [1], "block": [128],
        "buffers": {"a": {"bytes": 1024, "init": rnd(25, "f64", -100, 100)},
                    "b": {"bytes": 1024, "init": rnd(26, "f64", -3, 3)},
                    "out": poisoned(8192)},
        "params": ptrs("a", "b", "out"), "outputs": ["out"]}))
    out.append(("atomics", ATOMICS, {"grid": [4], "block": [128],
        "buffers": {"a": {"bytes": 2048, "init": rnd(31, "s32", -100000, 100000)},
                    "ctr": {"bytes": 320, "init": "zero"}, "old": {"bytes": 4, "init": "zero"}},
        "params": ptrs("a", "ctr", "old"), "outputs": ["ctr"]}))
    out.append(("warp_collectives", WARP, {"grid": [1], "block": [32],
        "buffers": {"a": {"bytes": 128, "init": rnd(41, "s32", -1000, 1000)},
                    "out": poisoned(1536)},
        "params": ptrs("a", "out"), "outputs": ["out"]}))
    out.append(("cta_barrier", BARRIER, {"grid": [1], "block": [256],
        "buffers": {"a": {"bytes": 1024, "init": rnd(51, "u32", 0, 65535)},
                    "out": poisoned(1024)},
        "params": ptrs("a", "out"), "outputs": ["out"]}))
    out.append(("mbarrier_phases", MBARRIER, {"grid": [1], "block": [128],
        "buffers": {"a": {"bytes": 512, "init": rnd(61, "u32", 0, 65535)},
                    "out": poisoned(512)},
        "params": ptrs("a", "out"), "outputs": ["out"]}))
    out.append(("mbarrier_warp_arrive", MBARRIER_WARP, {"grid": [1], "block": [128],
        "buffers": {"a": {"bytes": 4, "init": "zero"}, "out": poisoned(512)},
        "params": ptrs("a", "out"), "outputs": ["out"]}))
    for sw, inner in [("none", 64), ("32B", 16), ("64B", 32), ("128B", 64)]:
        smem = inner * 2 * 32
        out.append((f"tma_tile_swizzle_{sw}", TMA.replace("SMEM", str(smem)), {"grid": [1], "block": [128],
            "buffers": {"g": {"bytes": 32768, "init": rnd(70, "u16", 0, 65535)},
                        "out": poisoned(smem)},
            "params": [tmap(sw, inner), {"ptr": "out"}, {"u32": smem}, {"u32": 16}, {"u32": 8}],
            "outputs": ["out"]}))
    # What the TMA unit does to the values it copies (docs/tensormap.md "Open items"): a box that
    # hangs over the tensor's start and end in both dimensions with OOB-NaN fill (f32 random bits);
    # a TFLOAT32 map (does the copy round to tf32?); a FLOAT32_FTZ map over subnormals (flushed?).
    f32_box = {"grid": [1], "block": [128], "params": None, "outputs": ["out"]}
    for name, dtype, fill, init, c0, c1 in [
            ("tma_oob_nan_fill", "float32", "nan_request_zero_fma", rnd(72, "u32", 0, 4294967295), -8, 12),
            ("tma_tf32_map", "tfloat32", "none", rnd(73, "u32", 0, 4294967295), 8, 4),
            ("tma_f32_ftz_map", "float32_ftz", "none", rnd(74, "u32", 0, 0x00FFFFFF), 8, 4),
            # The top of the f32 range, +/-: finite values that round up to Inf, Inf, NaNs.
            ("tma_tf32_map_top_pos", "tfloat32", "none", rnd(75, "u32", 0x7F7FF000, 0x7FFFFFFF), 8, 4),
            ("tma_tf32_map_top_neg", "tfloat32", "none", rnd(76, "u32", 0xFF7FF000, 0xFFFFFFFF), 8, 4)]:
        m = {"tensormap": {"buffer": "g", "dtype": dtype, "rank": 2, "dims": [40, 24], "strides": [160],
                           "box": [32, 32], "oob_fill": fill}}
        case = dict(f32_box, buffers={"g": {"bytes": 3840, "init": init}, "out": poisoned(4096)},
                    params=[m, {"ptr": "out"}, {"u32": 4096}, {"u32": c0 & 0xFFFFFFFF}, {"u32": c1}])
        out.append((name, TMA.replace("SMEM", "4096"), case))
    # The OOB-NaN fill of the 16-bit and 64-bit float types (the same box, 128-byte rows).
    for name, dtype, esize in [("tma_oob_nan_fill_f16", "float16", 2), ("tma_oob_nan_fill_bf16", "bfloat16", 2),
                               ("tma_oob_nan_fill_f64", "float64", 8)]:
        inner = 128 // esize
        m = {"tensormap": {"buffer": "g", "dtype": dtype, "rank": 2, "dims": [inner + 8, 24],
                           "strides": [(inner + 8) * esize], "box": [inner, 32], "oob_fill": "nan_request_zero_fma"}}
        case = dict(f32_box, buffers={"g": {"bytes": (inner + 8) * esize * 24, "init": rnd(77, "u8", 0, 255)},
                                      "out": poisoned(4096)},
                    params=[m, {"ptr": "out"}, {"u32": 4096}, {"u32": 0xFFFFFFF8}, {"u32": 12}])
        out.append((name, TMA.replace("SMEM", "4096"), case))
    # Interleaved rank-3 tiles (16B: u8 NC/16HWC16-style rows of 16 bytes; 32B with the 32B swizzle).
    for il, sw in [("16B", "none"), ("32B", "32B")]:
        m = {"tensormap": {"buffer": "g", "dtype": "uint8", "rank": 3, "dims": [32, 16, 4],
                           "strides": [2048, 32768], "box": [32, 8, 4], "interleave": il, "swizzle": sw}}
        out.append((f"tma_interleave_{il}", TMA_LOAD_ND.replace("SMEM", "1024").replace("ISSUE", TMA_ISSUE_3D),
                    {"grid": [1], "block": [128],
                     "buffers": {"g": {"bytes": 131072, "init": rnd(78, "u8", 0, 255)}, "out": poisoned(1024)},
                     "params": [m, {"ptr": "out"}, {"u32": 0}, {"u32": 5}, {"u32": 1}, {"u32": 0}, {"u32": 0},
                                {"u32": 0}],
                     "outputs": ["out"]}))
    # im2col, NHWC f16 with 64 channels, 32 pixels per column, corners -1..-1 (a 3x3 filter's halo).
    for name, coords, offs in [("tma_im2col_edge", [0, -1, -1, 0], [0, 0]), ("tma_im2col_offsets", [0, 5, 7, 1], [1, 2])]:
        m = {"tensormap": {"buffer": "g", "encode": "im2col", "dtype": "float16", "rank": 4, "dims": [64, 10, 10, 2],
                           "strides": [128, 1280, 12800], "lower_corner": [-1, -1], "upper_corner": [-1, -1],
                           "channels_per_pixel": 64, "pixels_per_column": 32, "swizzle": "128B"}}
        out.append((name, TMA_LOAD_ND.replace("SMEM", "4096").replace("ISSUE", TMA_ISSUE_IM2COL),
                    {"grid": [1], "block": [128],
                     "buffers": {"g": {"bytes": 25600, "init": rnd(79, "u16", 0, 65535)}, "out": poisoned(4096)},
                     "params": [m, {"ptr": "out"}] + [{"u32": c & 0xFFFFFFFF} for c in coords] +
                               [{"u32": o} for o in offs],
                     "outputs": ["out"]}))
    # Stores and reductions of a 32x16 box at (24, 20) of a 40x24 tensor: it hangs over both edges.
    store = "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd2, {%r10, %r11}], [%r2];"
    reduce = "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%rd2, {%r10, %r11}], [%r2];"
    for name, dtype, esize, issue, init in [
            ("tma_store_f32", "float32", 4, store, rnd(80, "u32", 0, 4294967295)),
            ("tma_reduce_add_f32", "float32", 4, reduce, rnd(81, "f32", -4, 4)),
            ("tma_reduce_add_bf16", "bfloat16", 2, reduce, rnd(82, "u16", 0x3000, 0x4100))]:
        inner = 128 // esize
        m = {"tensormap": {"buffer": "g", "dtype": dtype, "rank": 2, "dims": [inner + 8, 24],
                           "strides": [(inner + 8) * esize], "box": [inner, 16]}}
        out.append((name, TMA_STORE.replace("SMEM", "2048").replace("ISSUE", issue),
                    {"grid": [1], "block": [128],
                     "buffers": {"g": {"bytes": (inner + 8) * esize * 24, "init": init},
                                 "src": {"bytes": 2048, "init": init}},
                     "params": [m, {"ptr": "src"}, {"u32": 24 if esize == 4 else 56}, {"u32": 20}],
                     "outputs": ["g"]}))
    out.append(("bulk_copy", BULK, {"grid": [1], "block": [128],
        "buffers": {"in": {"bytes": 4096, "init": rnd(81, "u32", 0, 4294967295)},
                    "out": poisoned(4096)},
        "params": ptrs("in", "out"), "outputs": ["out"]}))
    out.append(("mma_sync_f16", MMA, {"grid": [1], "block": [32],
        "buffers": {"a": {"bytes": 512, "init": rnd(91, "f16", -2, 2)},
                    "b": {"bytes": 256, "init": rnd(92, "f16", -2, 2)},
                    "c": {"bytes": 512, "init": rnd(93, "f32", -4, 4)},
                    "d": poisoned(512)},
        "params": ptrs("a", "b", "c", "d"), "outputs": ["d"]}))
    out.append(("ldmatrix_stmatrix", LDMATRIX, {"grid": [1], "block": [32],
        "buffers": {"a": {"bytes": 1024, "init": rnd(101, "u16", 0, 65535)},
                    "out": poisoned(1024)},
        "params": ptrs("a", "out"), "outputs": ["out"]}))
    out.append(("tensormap_replace", TMAP_REPLACE, {"grid": [1], "block": [32],
        "buffers": {"a": {"bytes": 1024, "init": rnd(111, "u32", 0, 4294967295)},
                    "b": {"bytes": 1024, "init": rnd(112, "u32", 0, 4294967295)},
                    "gmap": {"bytes": 128, "init": "zero"},
                    "out": poisoned(1024)},
        "params": [{"tensormap": {"buffer": "a", "dtype": "uint32", "rank": 2, "dims": [16, 16], "strides": [64],
                                  "box": [16, 16]}},
                   {"ptr": "gmap"}, {"ptr": "b"}, {"ptr": "out"}],
        "outputs": ["out"]}))
    out.append(("cluster_barrier", CLUSTER_BARRIER, {"grid": [4], "block": [64], "cluster": [2],
        "buffers": {"a": {"bytes": 1024, "init": rnd(121, "u32", 0, 1000000)},
                    "out": poisoned(1024)},
        "params": ptrs("a", "out"), "outputs": ["out"]}))
    out.append(("cp_async", CP_ASYNC, {"grid": [1], "block": [128],
        "buffers": {"in": {"bytes": 4096, "init": rnd(131, "u32", 0, 4294967295)},
                    "out": poisoned(4096)},
        "params": ptrs("in", "out"), "outputs": ["out"]}))
    out.append(("st_red_async", ST_ASYNC, {"grid": [2], "block": [32], "cluster": [2],
        "buffers": {"vals": {"bytes": 1024, "init": rnd(141, "u32", 0, 4294967295)},
                    "init": {"bytes": 1024, "init": rnd(142, "u32", 0, 4294967295)},
                    "out": poisoned(1024)},
        "params": ptrs("vals", "init", "out"), "outputs": ["out"]}))
    # Hang by design: expect_tx announces twice the bytes the copy delivers.
    out.append(("hang_wrong_expect_tx", TMA.replace("SMEM", "4096"), {"grid": [1], "block": [128],
        "expect": "hang",
        "comment": "expect_tx announces 8192 bytes, the copy delivers 4096: the phase never completes",
        "buffers": {"g": {"bytes": 32768, "init": rnd(70, "u16", 0, 65535)},
                    "out": poisoned(4096)},
        "params": [tmap("128B", 64), {"ptr": "out"}, {"u32": 8192}, {"u32": 0}, {"u32": 0}],
        "outputs": ["out"]}))
    out.append(("hang_missing_arrive", MISSING_ARRIVE, {"grid": [1], "block": [32],
        "expect": "hang",
        "comment": "the mbarrier expects 2 arrivals and gets 1",
        "buffers": {"out": {"bytes": 4, "init": "zero"}},
        "params": ptrs("out"), "outputs": ["out"]}))
    return out


def target_cases(target):
    """Cases for one target only (wgmma is sm_90a-only, tcgen05 sm_100a-only)."""
    out = []
    if target == "sm_90a":
        out.append(("wgmma_gemm", WGMMA, {"grid": [1], "block": [128],
            "buffers": {"a": {"bytes": 2048, "init": rnd(151, "f16", -2, 2)},
                        "b": {"bytes": 256, "init": rnd(152, "f16", -2, 2)},
                        "out": poisoned(2048)},
            "params": ptrs("a", "b", "out"), "outputs": ["out"]}))
    if target == "sm_100a":
        out.append(("tcgen05_gemm", TCGEN05, {"grid": [1], "block": [128],
            "buffers": {"a": {"bytes": 4096, "init": rnd(161, "f16", -2, 2)},
                        "b": {"bytes": 512, "init": rnd(162, "f16", -2, 2)},
                        "out": poisoned(8192)},
            "params": ptrs("a", "b", "out"), "outputs": ["out"]}))
    return out


def tensormap_param_sets():
    """Parameter sets for `ptxsim-hw tensormaps` (no launch): tiled maps over dtypes, swizzles,
    interleaves and ranks, im2col and im2col_wide maps, and sets the driver must reject."""
    sets = []
    base = 0x7f0000100000
    dtypes = [("uint8", 1), ("uint16", 2), ("uint32", 4), ("int32", 4), ("uint64", 8), ("float16", 2),
              ("float32", 4), ("float64", 8), ("bfloat16", 2), ("float32_ftz", 4), ("tfloat32", 4)]
    swizzles = [("none", 256), ("32B", 32), ("64B", 64), ("128B", 128)]
    for dt, size in dtypes:
        for sw, span in swizzles:
            inner = max(1, min(256, span // size))
            sets.append({"name": f"tiled {dt} {sw}", "params": {
                "encode": "tiled", "dtype": dt, "rank": 3, "global_address": hex(base),
                "dims": [1000, 37, 5], "strides": [1024 * size, 1024 * size * 40], "box": [inner, 8, 2],
                "element_strides": [1, 1, 1], "swizzle": sw, "l2_promotion": "128B",
                "oob_fill": "nan_request_zero_fma" if dt in ("float16", "float32", "bfloat16") else "none"}})
    for rank in range(1, 6):
        dims = [64, 3, 4, 5, 6][:rank]
        strides = [256 * 3 ** i for i in range(rank - 1)]
        sets.append({"name": f"tiled rank {rank} element strides", "params": {
            "encode": "tiled", "dtype": "float32", "rank": rank, "global_address": hex(base + 0x1000),
            "dims": dims, "strides": strides, "box": [16] + [2] * (rank - 1),
            "element_strides": [1] + [2] * (rank - 1)}})
    for il in ("16B", "32B"):
        sets.append({"name": f"tiled interleave {il}", "params": {
            "encode": "tiled", "dtype": "uint8", "rank": 3, "global_address": hex(base),
            "dims": [32, 64, 16], "strides": [2048, 131072], "box": [32, 8, 4], "interleave": il,
            "swizzle": "32B" if il == "32B" else "none"}})
    sets.append({"name": "im2col f16 NHWC", "params": {
        "encode": "im2col", "dtype": "float16", "rank": 4, "global_address": hex(base),
        "dims": [64, 10, 10, 2], "strides": [128, 1280, 12800], "element_strides": [1, 1, 1, 1],
        "lower_corner": [-1, -1], "upper_corner": [-1, -1], "channels_per_pixel": 64, "pixels_per_column": 32,
        "swizzle": "128B"}})
    sets.append({"name": "im2col bf16 NDHWC", "params": {
        "encode": "im2col", "dtype": "bfloat16", "rank": 5, "global_address": hex(base),
        "dims": [32, 8, 8, 4, 2], "strides": [64, 512, 4096, 16384], "element_strides": [1, 1, 1, 1, 1],
        "lower_corner": [0, -1, -1], "upper_corner": [0, 0, 0], "channels_per_pixel": 32,
        "pixels_per_column": 64, "swizzle": "64B"}})
    # Rejected by the driver (each breaks one rule of docs/tensormap.md "Encoder rules").
    sets.append({"name": "reject: misaligned address", "params": {
        "encode": "tiled", "dtype": "float32", "rank": 1, "global_address": hex(base + 4),
        "dims": [64], "strides": [], "box": [16]}})
    sets.append({"name": "reject: stride not a multiple of 16", "params": {
        "encode": "tiled", "dtype": "uint8", "rank": 2, "global_address": hex(base),
        "dims": [64, 64], "strides": [72], "box": [16, 16]}})
    sets.append({"name": "reject: box inner span beyond the 128B swizzle", "params": {
        "encode": "tiled", "dtype": "float32", "rank": 2, "global_address": hex(base),
        "dims": [64, 64], "strides": [256], "box": [64, 8], "swizzle": "128B"}})
    sets.append({"name": "reject: box dimension over 256", "params": {
        "encode": "tiled", "dtype": "uint8", "rank": 2, "global_address": hex(base),
        "dims": [1024, 64], "strides": [1024], "box": [512, 1]}})
    sets.append({"name": "reject: element stride 9", "params": {
        "encode": "tiled", "dtype": "uint8", "rank": 2, "global_address": hex(base),
        "dims": [64, 64], "strides": [64], "box": [16, 16], "element_strides": [1, 9]}})
    return sets + driver_bytes_param_sets()


def driver_bytes_param_sets():
    """Sets that vary one thing at a time to pin down what the driver writes into bytes 0x40..0x4F
    (model/tensormap/layout.h): the box's inner bytes, L2 promotion, element strides, swizzles, box
    shapes, rank 1, OOB fill and rank 5."""
    sets = []

    def tiled(name, dtype, esize, box, sw="none", l2="none", estr=None, dims=None, fill="none"):
        rank = len(box)
        dims = dims or [max(b * 4, 256) for b in box]
        strides, s = [], (dims[0] * esize + 15) // 16 * 16
        for d in dims[1:]:
            strides.append(s)
            s *= d
        sets.append({"name": name, "params": {
            "encode": "tiled", "dtype": dtype, "rank": rank, "global_address": "0x7f0000100000", "dims": dims,
            "strides": strides, "box": box, "element_strides": estr or [1] * rank, "interleave": "none",
            "swizzle": sw, "l2_promotion": l2, "oob_fill": fill}})

    for b in [16, 32, 48, 64, 96, 128, 240, 256]:
        tiled(f"u8 none box0={b} l2none", "uint8", 1, [b, 4])
        tiled(f"u8 none box0={b} l2 128B", "uint8", 1, [b, 4], l2="128B")
    for l2 in ["none", "64B", "128B", "256B"]:
        tiled(f"f32 box16 l2 {l2}", "float32", 4, [16, 4], l2=l2)
        tiled(f"f32 box16 es12 l2 {l2}", "float32", 4, [16, 4], l2=l2, estr=[1, 2])
    for sw, boxes in [("128B", [16, 32, 64, 128]), ("64B", [16, 32, 64]), ("32B", [16, 32])]:
        for b in boxes:
            tiled(f"u8 {sw} box0={b}", "uint8", 1, [b, 8], sw=sw)
            tiled(f"u8 {sw} box0={b} l2 256B", "uint8", 1, [b, 8], sw=sw, l2="256B")
    tiled("f32 es21", "float32", 4, [32, 4], estr=[2, 1])
    tiled("f32 es41 box32", "float32", 4, [32, 4], estr=[4, 1])
    tiled("f32 box1 rank2 es12 box8", "float32", 4, [8, 2], estr=[1, 2])
    tiled("f32 box 64x1", "float32", 4, [64, 1])
    tiled("f32 box 64x256", "float32", 4, [64, 256])
    for d, b in [([1024], [32]), ([256], [64]), ([4096], [256])]:
        tiled(f"rank1 f32 dims{d[0]} box{b[0]}", "float32", 4, b, dims=d)
    tiled("rank1 u8 dims256 box256 l2 128B", "uint8", 1, [256], dims=[256], l2="128B")
    tiled("f16 oob nan", "float16", 2, [64, 4], fill="nan_request_zero_fma")
    tiled("bf16 rank5", "bfloat16", 2, [64, 2, 2, 2, 2])
    return sets


def main():
    with open(os.path.join(ROOT, "tensormaps.params.json"), "w") as f:
        json.dump({"comment": "parameter sets for ptxsim-hw tensormaps (scripts/gen_conformance.py)",
                   "tensormaps": tensormap_param_sets()}, f, indent=1)
        f.write("\n")
    for target in TARGETS:
        d = os.path.join(ROOT, target)
        os.makedirs(d, exist_ok=True)
        for name, body, case in cases() + target_cases(target):
            with open(os.path.join(d, name + ".ptx"), "w") as f:
                f.write("// ptxsim conformance corpus (scripts/gen_conformance.py): " + name + "\n")
                f.write(HEAD.format(target=target) + body)
            doc = {"ptx": name + ".ptx"}
            doc.update(case)
            with open(os.path.join(d, name + ".case.json"), "w") as f:
                json.dump(doc, f, indent=2)
                f.write("\n")


if __name__ == "__main__":
    main()
