"""Small hand-written PTX kernels for the API tests (each makes one outcome happen)."""
HEAD = ".version 8.0\n.target sm_90a\n.address_size 64\n"

# y[i] = a * x[i] + y[i] for i < n, with 64-bit and 16-bit parameters in between to test packing.
AXPY = HEAD + """
.visible .entry axpy(.param .u32 n, .param .f32 a, .param .u64 x, .param .u16 pad, .param .u64 y)
{
  .reg .pred %p; .reg .f32 %f<4>; .reg .b32 %r<5>; .reg .b64 %rd<6>;
  ld.param.u32 %r1, [n]; ld.param.f32 %f1, [a]; ld.param.u64 %rd1, [x]; ld.param.u64 %rd2, [y];
  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x; mad.lo.s32 %r2, %r2, %r3, %r4;
  setp.ge.s32 %p, %r2, %r1;
  @%p bra DONE;
  mul.wide.s32 %rd3, %r2, 4; add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;
  ld.global.f32 %f2, [%rd4]; ld.global.f32 %f3, [%rd5]; fma.rn.f32 %f3, %f2, %f1, %f3; st.global.f32 [%rd5], %f3;
DONE:
  ret;
}
"""

# Stores one word `off` bytes past p: an illegal address when that is outside every allocation.
STORE_AT = HEAD + """
.visible .entry store_at(.param .u64 p, .param .u64 off)
{
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [p]; ld.param.u64 %rd2, [off]; add.s64 %rd1, %rd1, %rd2;
  st.global.u32 [%rd1], 7;
  ret;
}
"""

# Waits for an mbarrier phase that needs 64 arrivals while only the 32 threads of the block arrive.
HANG = HEAD + """
.visible .entry hang()
{
  .reg .pred %p<2>; .reg .b32 %r; .reg .b64 %st;
  .shared .align 8 .b64 bar;
  mov.u32 %r, %tid.x; setp.eq.u32 %p0, %r, 0;
  @%p0 mbarrier.init.shared.b64 [bar], 64;
  bar.sync 0;
  mbarrier.arrive.shared.b64 %st, [bar];
WAIT:
  mbarrier.try_wait.parity.shared.b64 %p1, [bar], 0;
  @!%p1 bra WAIT;
  ret;
}
"""

SPIN = HEAD + """
.visible .entry spin()
{
LOOP:
  bra LOOP;
}
"""

# Counts forever: never a hang (its registers change), so it runs into the instruction budget.
COUNT = HEAD + """
.visible .entry count()
{
  .reg .b32 %r;
  mov.u32 %r, 0;
LOOP:
  add.u32 %r, %r, 1;
  bra LOOP;
}
"""

# Reads the destination of a cp.async that is still in flight: completes, with a race warning.
RACE = HEAD + """
.visible .entry race(.param .u64 src)
{
  .reg .b32 %r; .reg .b64 %rd;
  .shared .align 16 .b8 buf[16];
  ld.param.u64 %rd, [src];
  cp.async.ca.shared.global [buf], [%rd], 4;
  ld.shared.u32 %r, [buf];
  cp.async.wait_all;
  ret;
}
"""

PRINTF = HEAD + """
.extern .func (.param .b32 rv) vprintf (.param .b64 fmt, .param .b64 args);
.global .align 1 .b8 fmt[7] = {118, 61, 37, 100, 10, 0};
.visible .entry say(.param .u32 v)
{
  .reg .b32 %r<2>; .reg .b64 %rd<3>;
  .local .align 8 .b8 args[8];
  ld.param.u32 %r1, [v];
  mov.u64 %rd1, args; cvta.local.u64 %rd1, %rd1; st.local.u32 [args], %r1;
  mov.u64 %rd2, fmt; cvta.global.u64 %rd2, %rd2;
  {
    .param .b64 p0; .param .b64 p1; .param .b32 rv;
    st.param.b64 [p0], %rd2; st.param.b64 [p1], %rd1;
    call.uni (rv), vprintf, (p0, p1);
  }
  ret;
}
"""

# out[ctaid.x] = (cluster rank << 24) | dynamic shared-memory bytes: what the launch configured.
WHERE = HEAD + """
.visible .entry where(.param .u64 out)
{
  .reg .b32 %r<5>; .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %cluster_ctarank; mov.u32 %r3, %dynamic_smem_size;
  shl.b32 %r2, %r2, 24; or.b32 %r4, %r2, %r3;
  mul.wide.u32 %rd2, %r1, 4; add.s64 %rd1, %rd1, %rd2;
  st.global.u32 [%rd1], %r4;
  ret;
}
"""
