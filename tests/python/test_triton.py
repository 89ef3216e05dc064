"""Unmodified @triton.jit kernels launched on ptxsim through ptxsim.triton (Triton 3.9's NVIDIA compiler
makes the PTX; ptxsim replaces the GPU). References are numpy, exact: small-integer inputs make every
product and sum exact in f32, so the results must match bit for bit."""
import os
import sys

import numpy as np
import pytest

triton = pytest.importorskip("triton")
import triton.language as tl  # noqa: E402
from triton.tools.tensor_descriptor import TensorDescriptor  # noqa: E402

import ptxsim  # noqa: E402
import ptxsim.triton  # noqa: E402

# ptxsim's own kernels (tests/triton, unmodified; the C++ tests run their committed PTX): here they go
# through Triton's JIT and this launcher instead.
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "triton"))
import kernels as tk  # noqa: E402


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def store_unmasked(out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, offs)


@triton.jit
def matmul_host_desc(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """C = A @ B^T with host-side tensor descriptors (TMA): A is M x K, B is N x K, C is M x N (f32)."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = a_desc.load([pid_m * BM, k])
        b = b_desc.load([pid_n * BN, k])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc)


@triton.autotune(configs=[triton.Config({"BLOCK": 256}, num_warps=2), triton.Config({"BLOCK": 1024}, num_warps=4)],
                 key=["n"])
@triton.jit
def add_tuned(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2 + tl.load(y_ptr + offs, mask=mask), mask=mask)


@pytest.fixture(params=["sm_90a", "sm_100a"])
def arch(request):
    ptxsim.triton.activate(request.param)
    yield request.param
    ptxsim.triton.deactivate()


@pytest.fixture
def sm90():
    ptxsim.triton.activate("sm_90a")
    yield
    ptxsim.triton.deactivate()


def test_vector_add(arch, rng):
    n = 5000  # not a multiple of BLOCK: the mask matters
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    out = ptxsim.full(n + 64, np.nan)  # poisoned, with a tail the kernel must not touch
    add_kernel[(triton.cdiv(n, 1024),)](ptxsim.asarray(x), ptxsim.asarray(y), out, n, BLOCK=1024)
    got = out.numpy()
    np.testing.assert_array_equal(got[:n], x + y)
    assert np.isnan(got[n:]).all()
    assert ptxsim.triton.last_launch.thread_instructions > 0
    # Plain numpy arrays: copied in before the launch and back after.
    host_out = np.full(n, np.nan, np.float32)
    add_kernel[(triton.cdiv(n, 512),)](x, y, host_out, n, BLOCK=512)
    np.testing.assert_array_equal(host_out, x + y)


def test_torch_cpu_tensors(sm90, rng):
    """torch CPU tensors straight into a Triton launch: copied in before it and back after it.
    Runs where torch is installed (CI's venv has none: its wheel is gigabytes)."""
    torch = pytest.importorskip("torch")
    n = 3000
    x = torch.from_numpy(rng.standard_normal(n).astype(np.float32))
    y = torch.from_numpy(rng.standard_normal(n).astype(np.float32))
    out = torch.full((n,), float("nan"))
    add_kernel[(triton.cdiv(n, 512),)](x, y, out, n, BLOCK=512)
    np.testing.assert_array_equal(out.numpy(), x.numpy() + y.numpy())


def test_bfloat16_arrays(sm90, rng):
    """ptxsim.bfloat16 arrays are *bf16 pointers to Triton; small integers are exact in bf16."""
    n = 700
    xi, yi = rng.integers(-100, 100, n), rng.integers(-100, 100, n)
    bits = lambda v: (v.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)  # noqa: E731 (exact here)
    out = ptxsim.zeros(n, ptxsim.bfloat16)
    add_kernel[(triton.cdiv(n, 256),)](ptxsim.asarray(bits(xi), dtype=ptxsim.bfloat16),
                                       ptxsim.asarray(bits(yi), dtype=ptxsim.bfloat16), out, n, BLOCK=256)
    np.testing.assert_array_equal(out.numpy(), bits(xi + yi))


def test_budget_through_triton(rng):
    ptxsim.triton.activate("sm_90a", max_instructions=1000, seed=int(rng.integers(1 << 30)))
    try:
        with pytest.raises(ptxsim.KernelTimeout, match="instruction budget"):
            add_kernel[(8,)](ptxsim.zeros(8192), ptxsim.zeros(8192), ptxsim.zeros(8192), 8192, BLOCK=1024)
    finally:
        ptxsim.triton.deactivate()


def test_fault_through_triton(sm90):
    out = ptxsim.zeros(1000, np.int32)  # 1000 elements, 4 programs of 256: the last one runs past the end
    with pytest.raises(ptxsim.KernelFault, match="illegal address"):
        store_unmasked[(4,)](out, BLOCK=256)


def _small_int_f16(rng, shape):
    return rng.integers(-4, 5, shape).astype(np.float16)


def test_matmul_host_tensor_descriptor(arch, rng):
    M, N, K, BM, BN, BK = 128, 64, 128, 64, 64, 64
    a, b = _small_int_f16(rng, (M, K)), _small_int_f16(rng, (N, K))
    c = ptxsim.full((M, N), np.nan)
    da, db = ptxsim.asarray(a), ptxsim.asarray(b)
    matmul_host_desc[(M // BM, N // BN)](TensorDescriptor.from_tensor(da, [BM, BK]),
                                         TensorDescriptor.from_tensor(db, [BN, BK]),
                                         TensorDescriptor.from_tensor(c, [BM, BN]), K, BM=BM, BN=BN, BK=BK,
                                         num_warps=4, num_stages=2)
    np.testing.assert_array_equal(c.numpy(), a.astype(np.float32) @ b.astype(np.float32).T)


def test_matmul_device_tensor_descriptor(sm90, rng):
    """tests/triton/kernels.py matmul_tma: descriptors made on the device (Triton's global scratch)."""
    M, N, K, BM, BN, BK = 64, 64, 128, 64, 64, 64
    a, b = _small_int_f16(rng, (M, K)), _small_int_f16(rng, (N, K))
    c = ptxsim.full((M, N), np.nan)
    k = tk.matmul_tma[(M // BM, N // BN)](ptxsim.asarray(a), ptxsim.asarray(b), c, M, N, K, BM=BM, BN=BN, BK=BK)
    assert k.metadata.global_scratch_size > 0  # the descriptors really live in the allocator's scratch
    np.testing.assert_array_equal(c.numpy(), a.astype(np.float32) @ b.astype(np.float32).T)


def test_autotune_runs_each_config_once(sm90, rng):
    n = 3000
    x = rng.integers(-100, 100, n).astype(np.float32)
    y = rng.integers(-100, 100, n).astype(np.float32)
    out = ptxsim.full(n, np.nan)
    before = ptxsim.triton.launches
    add_tuned[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](ptxsim.asarray(x), ptxsim.asarray(y), out, n)
    np.testing.assert_array_equal(out.numpy(), 2 * x + y)
    assert ptxsim.triton.launches - before == 3  # each config once to measure it, then the best once
    timings = add_tuned.configs_timings
    assert len(timings) == 2 and all(t[0] > 0 for t in timings.values())  # simulated warp-instructions
    assert add_tuned.best_config.kwargs["BLOCK"] in (256, 1024)


@pytest.mark.parametrize("arch_name", ["sm_90a", "sm_100a"])
def test_warp_specialized_matmul(arch_name, rng):
    """tl.range(warp_specialize=True), persistent over tiles, device-side descriptors, f16 output."""
    ptxsim.triton.activate(arch_name)
    try:
        M, N, K, BM, BN, BK, P = 256, 128, 128, 128, 128, 64, 2
        a, b = _small_int_f16(rng, (M, K)), _small_int_f16(rng, (N, K))  # |sums| <= 2048: exact in f16
        c = ptxsim.full((M, N), np.nan, np.float16)
        k = tk.matmul_ws[(P,)](ptxsim.asarray(a), ptxsim.asarray(b), c, M, N, K, BM=BM, BN=BN, BK=BK,
                               NUM_PROGRAMS=P, num_warps=4, num_stages=3)
        np.testing.assert_array_equal(c.numpy(), (a.astype(np.float32) @ b.astype(np.float32).T).astype(np.float16))
        if arch_name == "sm_100a":  # Triton split the loop into partitions: more warps than num_warps
            assert k.metadata.num_warps > 4
    finally:
        ptxsim.triton.deactivate()


def _gluon():
    pytest.importorskip("triton.experimental.gluon")
    import gluon_kernels
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor as GluonDescriptor
    return gluon_kernels, gl, GluonDescriptor


def test_gluon_warp_specialized_matmul(rng):
    """A Gluon kernel on sm_100a: gl.warp_specialize (TMA producer, tcgen05 issuer, epilogue warps),
    host-side descriptors with Gluon's shared layouts, double-buffered TMEM accumulators."""
    G, gl, GluonDescriptor = _gluon()
    ptxsim.triton.activate("sm_100a")
    try:
        M, N, K, P = 256, 256, 128, 3
        a, b = _small_int_f16(rng, (M, K)), _small_int_f16(rng, (N, K))
        c = ptxsim.full((M, N), np.nan, np.float16)

        def desc(x, block):
            return GluonDescriptor.from_tensor(x, block, gl.NVMMASharedLayout.get_default_for(block, gl.float16))
        G.gluon_warp_specialized_matmul[(P,)](desc(ptxsim.asarray(a), [128, 64]), desc(ptxsim.asarray(b), [128, 64]),
                                              desc(c, [128, 128]), M, N, K, STAGES=3, num_warps=4)
        np.testing.assert_array_equal(c.numpy(), (a.astype(np.float32) @ b.astype(np.float32).T).astype(np.float16))
    finally:
        ptxsim.triton.deactivate()


@pytest.mark.parametrize("two_ctas", [True, False])
def test_gluon_cluster_matmul(two_ctas, rng):
    """num_ctas=2: clusters of two CTAs, a 2-CTA tcgen05 MMA or a multicast TMA."""
    G, gl, GluonDescriptor = _gluon()
    ptxsim.triton.activate("sm_100a")
    try:
        M, N, K, BN = 256, 128, 128, 128
        a, b = _small_int_f16(rng, (M, K)), _small_int_f16(rng, (N, K))
        c = ptxsim.full((M, N), np.nan)

        def desc(x, block, cga):
            lay = gl.NVMMASharedLayout.get_default_for(block, gl.float16, cga_layout=cga)
            return GluonDescriptor.from_tensor(x, block, lay)
        G.gluon_cluster_matmul[(M // 256, N // BN)](desc(ptxsim.asarray(a), [256, 64], [[1, 0]]),
                                                    desc(ptxsim.asarray(b), [BN, 64], [[1, 0]] if two_ctas else [[0, 0]]),
                                                    c, N, K, TWO_CTAS=two_ctas, num_warps=4, num_ctas=2)
        np.testing.assert_array_equal(c.numpy(), a.astype(np.float32) @ b.astype(np.float32).T)
    finally:
        ptxsim.triton.deactivate()


def _im2col_kernel():
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma

    @gluon.jit
    def im2col_tile(x_desc, out_ptr, OFF_H: gl.constexpr, OFF_W: gl.constexpr):
        """One im2col TMA load (coordinates and filter offsets outermost first, as Gluon takes them)
        of a pixels x channels tile, written out row-major."""
        BP: gl.constexpr = x_desc.block_type.shape[0]
        BC: gl.constexpr = x_desc.block_type.shape[1]
        smem = gl.allocate_shared_memory(x_desc.dtype, x_desc.block_type.shape, x_desc.layout)
        bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
        mbarrier.init(bar, count=1)
        mbarrier.expect(bar, x_desc.block_type.nbytes)
        tma.async_load_im2col(x_desc, [0, 0, 0, 0], [OFF_H, OFF_W], bar, smem)
        mbarrier.wait(bar, 0)
        mbarrier.invalidate(bar)
        layout: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
        tile = smem.load(layout)
        rp = gl.arange(0, BP, gl.SliceLayout(1, layout))
        rc = gl.arange(0, BC, gl.SliceLayout(0, layout))
        gl.store(out_ptr + rp[:, None] * BC + rc[None, :], tile)
    return im2col_tile


@pytest.mark.parametrize("arch_name", ["sm_90a", "sm_100a"])
def test_gluon_im2col_descriptor(arch_name, rng):
    """A host-side im2col descriptor (TensorDescriptorIm2Col, cuTensorMapEncodeIm2col): pixel p of the
    tile is image pixel (h, w) = divmod(p, W) of the bounding box (the whole image here), sampled at
    (h + OFF_H, w + OFF_W); samples outside the image read zero."""
    _, gl, _ = _gluon()
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptorIm2Col
    kernel = _im2col_kernel()
    ptxsim.triton.activate(arch_name)
    try:
        H, W, C, OFF_H, OFF_W = 8, 8, 64, 1, 2
        x = rng.integers(-100, 100, (1, H, W, C)).astype(np.float16)  # NHWC
        out = ptxsim.full((H * W, C), np.nan, np.float16)
        lay = gl.NVMMASharedLayout.get_default_for([H * W, C], gl.float16)
        desc = TensorDescriptorIm2Col.from_tensor(ptxsim.asarray(x), [H * W, C], lay, pixel_box_lower_corner=[0, 0],
                                                  pixel_box_upper_corner=[0, 0])
        kernel[(1,)](desc, out, OFF_H=OFF_H, OFF_W=OFF_W, num_warps=4)
        ref = np.zeros((H * W, C), np.float16)
        for p in range(H * W):
            h, w = divmod(p, W)
            if h + OFF_H < H and w + OFF_W < W:
                ref[p] = x[0, h + OFF_H, w + OFF_W]
        np.testing.assert_array_equal(out.numpy(), ref)
    finally:
        ptxsim.triton.deactivate()
