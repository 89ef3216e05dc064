# ptxsim's own Gluon kernels (triton.experimental.gluon), sm_100a only: tcgen05 MMA with A in tensor
# memory, scale factors copied into TMEM with tcgen05.cp for a block-scaled MMA, a warp-specialized
# persistent matmul, a persistent matmul scheduled by cluster launch control, and a 2-CTA tcgen05
# MMA fed by multicast TMA in a cluster of 2. scripts/gen_triton_ptx.py compiles BUILDS below;
# tests/unit/triton_test.cpp runs them. Written for ptxsim in the style of Triton's Gluon
# tutorials (the API facts carry over, not their code).
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.blackwell import (
    TensorMemoryLayout,
    TensorMemoryScalesLayout,
    allocate_tensor_memory,
    clc,
    fence_async_shared,
    mbarrier,
    tcgen05_commit,
    tcgen05_copy,
    tcgen05_mma,
    tcgen05_mma_barrier_count,
    tcgen05_mma_scaled,
    tma,
)


@gluon.jit
def _store_tile(ptr, ld, off_m, off_n, acc, BM: gl.constexpr, BN: gl.constexpr):
    """Stores a BM x BN f32 register tile (any layout) at ptr[(off_m + i) * ld + off_n + j]."""
    out: gl.constexpr = gl.BlockedLayout([1, 4], [1, 32], [gl.num_warps(), 1], [1, 0])
    acc = gl.convert_layout(acc, out)
    rm = off_m + gl.arange(0, BM, gl.SliceLayout(1, out))
    rn = off_n + gl.arange(0, BN, gl.SliceLayout(0, out))
    gl.store(ptr + rm[:, None] * ld + rn[None, :], acc)


@gluon.jit
def gluon_tmem_operand(x_desc, w1_desc, w2_desc, y_ptr, N2):
    """Y = (X @ W1^T) @ W2^T, one 128-row block per program: the first product's f32 accumulator is
    read back, rounded to f16 and written to tensor memory, where the second tcgen05 MMA takes it as
    its A operand. X is M x K1, W1 is N1 x K1, W2 is N2 x N1 (f16, K-major); Y is M x N2 (f32)."""
    BM: gl.constexpr = x_desc.block_type.shape[0]
    K1: gl.constexpr = x_desc.block_type.shape[1]
    N1: gl.constexpr = w1_desc.block_type.shape[0]
    N2B: gl.constexpr = w2_desc.block_type.shape[0]
    off_m = gl.program_id(0) * BM
    x_s = gl.allocate_shared_memory(x_desc.dtype, x_desc.block_type.shape, x_desc.layout)
    w1_s = gl.allocate_shared_memory(w1_desc.dtype, w1_desc.block_type.shape, w1_desc.layout)
    w2_s = gl.allocate_shared_memory(w2_desc.dtype, w2_desc.block_type.shape, w2_desc.layout)
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mma_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    mbarrier.init(mma_bar, count=1)
    mbarrier.expect(bar, x_desc.block_type.nbytes + w1_desc.block_type.nbytes + w2_desc.block_type.nbytes)
    tma.async_load(x_desc, [off_m, 0], bar, x_s)
    tma.async_load(w1_desc, [0, 0], bar, w1_s)
    tma.async_load(w2_desc, [0, 0], bar, w2_s)
    mbarrier.wait(bar, 0)

    h_tmem = allocate_tensor_memory(gl.float32, [BM, N1], TensorMemoryLayout([BM, N1], col_stride=1))
    tcgen05_mma(x_s, w1_s.permute((1, 0)), h_tmem, use_acc=False)
    tcgen05_commit(mma_bar)
    mbarrier.wait(mma_bar, 0)
    h = h_tmem.load().to(gl.float16)
    # f16 in tensor memory, two values per 32-bit column: the A operand of the next MMA.
    a_tmem = allocate_tensor_memory(gl.float16, [BM, N1], TensorMemoryLayout([BM, N1], col_stride=1), h)
    y_tmem = allocate_tensor_memory(gl.float32, [BM, N2B], TensorMemoryLayout([BM, N2B], col_stride=1))
    tcgen05_mma(a_tmem, w2_s.permute((1, 0)), y_tmem, use_acc=False)
    tcgen05_commit(mma_bar)
    mbarrier.wait(mma_bar, 1)
    mbarrier.invalidate(bar)
    mbarrier.invalidate(mma_bar)
    _store_tile(y_ptr, N2, off_m, 0, y_tmem.load(), BM, N2B)


@gluon.jit
def gluon_mma_scaled(a_desc, b_desc, as_desc, bs_desc, c_ptr, N, K, FMT: gl.constexpr, VEC: gl.constexpr):
    """C (f32) = (A * sA) @ (B * sB)^T with tcgen05_mma_scaled, one tile per program. A is M x K and
    B is N x K (K-major; FMT "e4m3", or "e2m1" packed two per byte along K). The scales (UE8M0 for
    mxfp8, E4M3 for nvfp4; one per VEC of K) are in the packed layout [MN/128, K/VEC/4, 32, 4, 4],
    viewed as 5D tensors [1, MN/128, K/VEC/4, 2, 256] and loaded by TMA into unswizzled shared
    memory; the shared-memory view is permuted back to [128, BK/VEC] and tcgen05_copy (tcgen05.cp)
    moves it into tensor memory for the MMA."""
    PER_BYTE: gl.constexpr = 2 if FMT == "e2m1" else 1
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BKB: gl.constexpr = a_desc.block_type.shape[1]  # bytes of K per tile
    BK: gl.constexpr = BKB * PER_BYTE
    BN: gl.constexpr = b_desc.block_type.shape[0]
    SK: gl.constexpr = BK // VEC
    pm = gl.program_id(0)
    pn = gl.program_id(1)
    a_s = gl.allocate_shared_memory(a_desc.dtype, a_desc.block_type.shape, a_desc.layout)
    b_s = gl.allocate_shared_memory(b_desc.dtype, b_desc.block_type.shape, b_desc.layout)
    as_s = gl.allocate_shared_memory(as_desc.dtype, as_desc.block_type.shape, as_desc.layout)
    bs_s = gl.allocate_shared_memory(bs_desc.dtype, bs_desc.block_type.shape, bs_desc.layout)
    scales: gl.constexpr = TensorMemoryScalesLayout()
    as_t = allocate_tensor_memory(as_desc.dtype, [BM, SK], scales)
    bs_t = allocate_tensor_memory(bs_desc.dtype, [BN, SK], scales)
    acc_t = allocate_tensor_memory(gl.float32, [BM, BN], TensorMemoryLayout([BM, BN], col_stride=1))
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mma_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    mbarrier.init(mma_bar, count=1)
    phase = 0
    for kb in range(0, K // BK):
        mbarrier.expect(bar, a_desc.block_type.nbytes + b_desc.block_type.nbytes + as_desc.block_type.nbytes
                        + bs_desc.block_type.nbytes)
        tma.async_load(a_desc, [pm * BM, kb * BKB], bar, a_s)
        tma.async_load(b_desc, [pn * BN, kb * BKB], bar, b_s)
        tma.async_load(as_desc, [0, pm, kb * (SK // 4), 0, 0], bar, as_s)
        tma.async_load(bs_desc, [0, pn, kb * (SK // 4), 0, 0], bar, bs_s)
        mbarrier.wait(bar, phase)
        sa = as_s.reshape((1, SK // 4, 32, 4, 4)).permute((0, 3, 2, 1, 4)).reshape((BM, SK))
        sb = bs_s.reshape((1, SK // 4, 32, 4, 4)).permute((0, 3, 2, 1, 4)).reshape((BN, SK))
        tcgen05_copy(sa, as_t)
        tcgen05_copy(sb, bs_t)
        tcgen05_mma_scaled(a_s, b_s.permute((1, 0)), acc_t, as_t, bs_t, FMT, FMT, use_acc=kb > 0)
        tcgen05_commit(mma_bar)
        mbarrier.wait(mma_bar, phase)
        phase ^= 1
    mbarrier.invalidate(bar)
    mbarrier.invalidate(mma_bar)
    _store_tile(c_ptr, N, pm * BM, pn * BN, acc_t.load(), BM, BN)


# ---- warp-specialized persistent matmul ------------------------------------------------------

@gluon.jit
def _ws_load(a_desc, b_desc, a_bufs, b_bufs, ready, empty, M, N, K):
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    BN: gl.constexpr = b_desc.block_type.shape[0]
    STAGES: gl.constexpr = a_bufs.shape[0]
    num_n = gl.cdiv(N, BN)
    i = 0
    for tile in range(gl.program_id(0), gl.cdiv(M, BM) * num_n, gl.num_programs(0)):
        for k in range(0, K, BK):
            s = i % STAGES
            mbarrier.wait(empty.index(s), (i // STAGES) & 1 ^ 1)  # the first pass finds every slot free
            mbarrier.expect(ready.index(s), a_desc.block_type.nbytes + b_desc.block_type.nbytes)
            tma.async_load(a_desc, [tile // num_n * BM, k], ready.index(s), a_bufs.index(s))
            tma.async_load(b_desc, [tile % num_n * BN, k], ready.index(s), b_bufs.index(s))
            i += 1


@gluon.jit
def _ws_mma(a_bufs, b_bufs, ready, empty, acc, acc_ready, acc_empty, M, N, K, BM: gl.constexpr, BN: gl.constexpr,
            BK: gl.constexpr):
    STAGES: gl.constexpr = a_bufs.shape[0]
    i = 0
    t = 0
    for tile in range(gl.program_id(0), gl.cdiv(M, BM) * gl.cdiv(N, BN), gl.num_programs(0)):
        buf = t % 2
        mbarrier.wait(acc_empty.index(buf), (t // 2) & 1 ^ 1)
        for k in range(0, K, BK):
            s = i % STAGES
            mbarrier.wait(ready.index(s), (i // STAGES) & 1)
            tcgen05_mma(a_bufs.index(s), b_bufs.index(s).permute((1, 0)), acc.index(buf), use_acc=k > 0,
                        mbarriers=[empty.index(s)])
            i += 1
        tcgen05_commit(acc_ready.index(buf))
        t += 1


@gluon.jit
def _ws_epilogue(c_desc, c_s, acc, acc_ready, acc_empty, M, N):
    BM: gl.constexpr = c_desc.block_type.shape[0]
    BN: gl.constexpr = c_desc.block_type.shape[1]
    num_n = gl.cdiv(N, BN)
    t = 0
    for tile in range(gl.program_id(0), gl.cdiv(M, BM) * num_n, gl.num_programs(0)):
        buf = t % 2
        mbarrier.wait(acc_ready.index(buf), (t // 2) & 1)
        c = acc.index(buf).load()
        mbarrier.arrive(acc_empty.index(buf), count=1)
        tma.store_wait(0)  # the previous tile's store has read c_s
        c_s.store(c.to(c_desc.dtype))
        fence_async_shared()
        tma.async_store(c_desc, [tile // num_n * BM, tile % num_n * BN], c_s)
        t += 1
    tma.store_wait(0)


@gluon.jit
def gluon_warp_specialized_matmul(a_desc, b_desc, c_desc, M, N, K, STAGES: gl.constexpr):
    """C (f16) = A @ B^T, persistent (program p takes tiles p, p + P, ...) and warp-specialized with
    gl.warp_specialize: a 1-warp TMA producer and a 1-warp MMA issuer around a STAGES-deep ring of
    shared-memory buffers, and the 4 default warps as the epilogue reading two TMEM accumulators
    (double-buffered, so the next tile's MMAs overlap the store)."""
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    BN: gl.constexpr = b_desc.block_type.shape[0]
    a_bufs = gl.allocate_shared_memory(a_desc.dtype, [STAGES] + a_desc.block_type.shape, a_desc.layout)
    b_bufs = gl.allocate_shared_memory(b_desc.dtype, [STAGES] + b_desc.block_type.shape, b_desc.layout)
    c_s = gl.allocate_shared_memory(c_desc.dtype, c_desc.block_type.shape, c_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    acc_ready = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    acc_empty = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(STAGES):
        mbarrier.init(ready.index(s), count=1)
        mbarrier.init(empty.index(s), count=1)
    for s in gl.static_range(2):
        mbarrier.init(acc_ready.index(s), count=1)
        mbarrier.init(acc_empty.index(s), count=1)
    acc = allocate_tensor_memory(gl.float32, [2, BM, BN], TensorMemoryLayout([BM, BN], col_stride=1))
    gl.warp_specialize([
        (_ws_epilogue, (c_desc, c_s, acc, acc_ready, acc_empty, M, N)),
        (_ws_load, (a_desc, b_desc, a_bufs, b_bufs, ready, empty, M, N, K)),
        (_ws_mma, (a_bufs, b_bufs, ready, empty, acc, acc_ready, acc_empty, M, N, K, BM, BN, BK)),
    ], [1, 1], [40, 40])


# ---- cluster launch control --------------------------------------------------------------------

@gluon.jit
def gluon_clc_matmul(a_desc, b_desc, c_ptr, N, K):
    """C (f32) = A @ B^T with one program per tile, made persistent by cluster launch control: a
    program computes its tile, and meanwhile asks (clusterlaunchcontrol.try_cancel) to cancel a
    program not launched yet; when that succeeds it computes the cancelled program's tile too, and
    so on until no launch is left to cancel."""
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    BN: gl.constexpr = b_desc.block_type.shape[0]
    num_n = gl.cdiv(N, BN)
    a_s = gl.allocate_shared_memory(a_desc.dtype, a_desc.block_type.shape, a_desc.layout)
    b_s = gl.allocate_shared_memory(b_desc.dtype, b_desc.block_type.shape, b_desc.layout)
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mma_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    clc_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    clc_result = gl.allocate_shared_memory(gl.int64, [2], gl.SwizzledSharedLayout(1, 1, 1, [0]))
    mbarrier.init(bar, count=1)
    mbarrier.init(mma_bar, count=1)
    mbarrier.init(clc_bar, count=1)
    acc_t = allocate_tensor_memory(gl.float32, [BM, BN], TensorMemoryLayout([BM, BN], col_stride=1))
    tile = gl.program_id(0)
    phase = 0
    clc_phase = 0
    has_work = True
    while has_work:
        clc.try_cancel(clc_result, clc_bar)
        mbarrier.expect(clc_bar, 16)
        off_m = tile // num_n * BM
        off_n = tile % num_n * BN
        for k in range(0, K, BK):
            mbarrier.expect(bar, a_desc.block_type.nbytes + b_desc.block_type.nbytes)
            tma.async_load(a_desc, [off_m, k], bar, a_s)
            tma.async_load(b_desc, [off_n, k], bar, b_s)
            mbarrier.wait(bar, phase)
            tcgen05_mma(a_s, b_s.permute((1, 0)), acc_t, use_acc=k > 0)
            tcgen05_commit(mma_bar)
            mbarrier.wait(mma_bar, phase)
            phase ^= 1
        _store_tile(c_ptr, N, off_m, off_n, acc_t.load(), BM, BN)
        mbarrier.wait(clc_bar, clc_phase)
        clc_phase ^= 1
        res = clc.load_result(clc_result)
        has_work = res.is_canceled()
        if has_work:  # a failed request's first ctaid is undefined (PTX ISA): query it only on success
            tile = res.program_id(0)


# ---- clusters of 2: a 2-CTA tcgen05 MMA, and multicast TMA ----------------------------------------

@gluon.jit
def gluon_cluster_matmul(a_desc, b_desc, c_ptr, N, K, TWO_CTAS: gl.constexpr):
    """C (f32) = A @ B^T by clusters of 2 CTAs, one 256 x BN tile per cluster (program). Each CTA
    loads its 128 rows of A (A's descriptor layout splits rows across the pair) and keeps 128 rows
    of the accumulator in its tensor memory.
    TWO_CTAS: B is split too (each CTA loads BN/2 of its rows) and the even CTA issues cta_group::2
    tcgen05 MMAs that read both CTAs' shared memory and write both CTAs' accumulators; the MMA's
    completion is committed with .multicast::cluster to the pair, and the TMA loads arrive on the
    even CTA's barrier (the pair's).
    Otherwise: B is broadcast (its layout has a zero CTA basis), so each B tile is loaded once with a
    .multicast::cluster TMA into both CTAs, each CTA runs its own cta_group::1 MMAs, and the
    multicast commit tells both CTAs when a tile's shared memory may be overwritten."""
    BM: gl.constexpr = a_desc.block_type.shape[0]  # the pair's rows (256)
    BK: gl.constexpr = a_desc.block_type.shape[1]
    BN: gl.constexpr = b_desc.block_type.shape[0]
    off_m = gl.program_id(0) * BM
    off_n = gl.program_id(1) * BN
    a_s = gl.allocate_shared_memory(a_desc.dtype, a_desc.block_type.shape, a_desc.layout)
    b_s = gl.allocate_shared_memory(b_desc.dtype, b_desc.block_type.shape, b_desc.layout)
    tma_bar = mbarrier.allocate_mbarrier(two_ctas=TWO_CTAS)
    mma_bar = mbarrier.allocate_mbarrier()
    mbarrier.init(tma_bar, count=1)
    mbarrier.init(mma_bar, count=tcgen05_mma_barrier_count([a_s, b_s], multicast=True, two_ctas=TWO_CTAS))
    acc_layout: gl.constexpr = TensorMemoryLayout(block=(128, BN), col_stride=1, cga_layout=[[1, 0]],
                                                  two_ctas=TWO_CTAS)
    acc_t = allocate_tensor_memory(gl.float32, [BM, BN], acc_layout)
    phase = 0
    for k in range(0, K, BK):
        mbarrier.expect(tma_bar, a_desc.nbytes_per_cta + b_desc.nbytes_per_cta)
        tma.async_load(a_desc, [off_m, k], tma_bar, a_s, multicast=True)
        tma.async_load(b_desc, [off_n, k], tma_bar, b_s, multicast=True)
        mbarrier.wait(tma_bar, phase, deps=[a_s, b_s])
        tcgen05_mma(a_s, b_s.permute((1, 0)), acc_t, use_acc=k > 0, multicast=True, mbarriers=[mma_bar])
        mbarrier.wait(mma_bar, phase, deps=[a_s, b_s])
        phase ^= 1
    mbarrier.invalidate(tma_bar)
    mbarrier.invalidate(mma_bar)
    out: gl.constexpr = gl.BlockedLayout([1, 4], [1, 32], [gl.num_warps(), 1], [1, 0], cga_layout=[[1, 0]])
    acc = gl.convert_layout(acc_t.load(), out)
    rm = off_m + gl.arange(0, BM, gl.SliceLayout(1, out))
    rn = off_n + gl.arange(0, BN, gl.SliceLayout(0, out))
    gl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def _desc(dtype, block, **layout):
    """The signature type of a Gluon host-side tensor descriptor (its NVMMASharedLayout included)."""
    lay = gl.NVMMASharedLayout.get_default_for(block, dtype, **layout)
    name = {gl.float16: "fp16", gl.float8e4nv: "fp8e4nv", gl.uint8: "u8", gl.float32: "fp32"}[dtype]
    return f"tensordesc<{name}[{','.join(map(str, block))}],{repr(lay)}>"


I32 = "i32"
SM100 = ["sm_100a"]
BUILDS = {
    "gluon_tmem_operand": (
        gluon_tmem_operand,
        {"x_desc": _desc(gl.float16, [128, 64]), "w1_desc": _desc(gl.float16, [64, 64]),
         "w2_desc": _desc(gl.float16, [128, 64]), "y_ptr": "*fp32", "N2": I32}, {}, {"num_warps": 4}, SM100),
    "gluon_mma_scaled": (
        gluon_mma_scaled,
        {"a_desc": _desc(gl.float8e4nv, [128, 128]), "b_desc": _desc(gl.float8e4nv, [128, 128]),
         "as_desc": _desc(gl.uint8, [1, 1, 1, 2, 256]), "bs_desc": _desc(gl.uint8, [1, 1, 1, 2, 256]),
         "c_ptr": "*fp32", "N": I32, "K": I32}, {"FMT": "e4m3", "VEC": 32}, {"num_warps": 4}, SM100),
    "gluon_mma_scaled_nvfp4": (
        gluon_mma_scaled,
        {"a_desc": _desc(gl.uint8, [128, 64]), "b_desc": _desc(gl.uint8, [128, 64]),
         "as_desc": _desc(gl.float8e4nv, [1, 1, 2, 2, 256]), "bs_desc": _desc(gl.float8e4nv, [1, 1, 2, 2, 256]),
         "c_ptr": "*fp32", "N": I32, "K": I32}, {"FMT": "e2m1", "VEC": 16}, {"num_warps": 4}, SM100),
    "gluon_warp_specialized_matmul": (
        gluon_warp_specialized_matmul,
        {"a_desc": _desc(gl.float16, [128, 64]), "b_desc": _desc(gl.float16, [128, 64]),
         "c_desc": _desc(gl.float16, [128, 128]), "M": I32, "N": I32, "K": I32}, {"STAGES": 3},
        {"num_warps": 4}, SM100),
    "gluon_clc_matmul": (
        gluon_clc_matmul,
        {"a_desc": _desc(gl.float16, [128, 64]), "b_desc": _desc(gl.float16, [128, 64]), "c_ptr": "*fp32",
         "N": I32, "K": I32}, {}, {"num_warps": 4}, SM100),
    "gluon_2cta_matmul": (
        gluon_cluster_matmul,
        {"a_desc": _desc(gl.float16, [256, 64], cga_layout=[[1, 0]]),
         "b_desc": _desc(gl.float16, [128, 64], cga_layout=[[1, 0]]), "c_ptr": "*fp32", "N": I32, "K": I32},
        {"TWO_CTAS": True}, {"num_warps": 4, "num_ctas": 2}, SM100),
    "gluon_multicast_matmul": (
        gluon_cluster_matmul,
        {"a_desc": _desc(gl.float16, [256, 64], cga_layout=[[1, 0]]),
         "b_desc": _desc(gl.float16, [128, 64], cga_layout=[[0, 0]]), "c_ptr": "*fp32", "N": I32, "K": I32},
        {"TWO_CTAS": False}, {"num_warps": 4, "num_ctas": 2}, SM100),
}
