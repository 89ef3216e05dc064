# ptxsim's own Triton kernels. scripts/gen_triton_ptx.py compiles each for sm_90a and sm_100a with
# Triton and writes the PTX and a manifest next to this file; tests/triton/triton_test.cpp runs
# them through ptxsim against CPU references. Only the generated PTX is needed to build and test.
import triton
import triton.language as tl


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """C[M,N] (f32) = A[M,K] @ B[K,N]; one BMxBN tile per program."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rk)[None, :] * stride_ak)
        b = tl.load(b_ptr + (k + rk)[:, None] * stride_bk + rn[None, :] * stride_bn)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc)


@triton.jit
def matmul_tma(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """The same product with tensor descriptors made on the device (TMA loads and stores).
    A is M x K, B is N x K (both K-major), C is M x N, all row-major and contiguous."""
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = a_desc.load([pid_m * BM, k])
        b = b_desc.load([pid_n * BN, k])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc)


@triton.jit
def softmax(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    """y = softmax(x) row by row (f32), one row per program, columns masked past n_cols."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(y_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=mask)


@triton.jit
def attention_fwd(q_ptr, k_ptr, v_ptr, o_ptr, seq_len, sm_scale, HEAD: tl.constexpr, BM: tl.constexpr,
                  BN: tl.constexpr):
    """Causal flash-attention forward for one head: O = softmax(Q K^T * scale, causal) V, f16 in,
    f32 accumulation, f16 out; Q, K, V, O are seq_len x HEAD row-major."""
    start_m = tl.program_id(0) * BM
    rm = start_m + tl.arange(0, BM)
    rd = tl.arange(0, HEAD)
    q = tl.load(q_ptr + rm[:, None] * HEAD + rd[None, :])
    m_i = tl.full((BM,), -float("inf"), tl.float32)
    l_i = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, HEAD), tl.float32)
    qk_scale = sm_scale * 1.44269504
    for start_n in range(0, start_m + BM, BN):
        rn = start_n + tl.arange(0, BN)
        k = tl.load(k_ptr + rn[:, None] * HEAD + rd[None, :])
        qk = tl.dot(q, k.T) * qk_scale
        qk = tl.where(rm[:, None] >= rn[None, :], qk, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(qk, axis=1))
        p = tl.math.exp2(qk - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + rn[:, None] * HEAD + rd[None, :])
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_new
    tl.store(o_ptr + rm[:, None] * HEAD + rd[None, :], (acc / l_i[:, None]).to(tl.float16))


@triton.jit
def matmul_mx(a_ptr, b_ptr, as_ptr, bs_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """C = (A * 2^(sA-127)) @ (B * 2^(sB-127)) with tl.dot_scaled: e4m3 A (M x K) and B (K x N), one
    UE8M0 scale per 32 elements along K (sA: M x K/32, sB: N x K/32). On sm_100a this is
    tcgen05.mma kind::mxf8f6f4.block_scale; on sm_90a Triton scales in software and uses wgmma."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    rs = tl.arange(0, BK // 32)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        sa = tl.load(as_ptr + rm[:, None] * (K // 32) + (k // 32 + rs)[None, :])
        sb = tl.load(bs_ptr + rn[:, None] * (K // 32) + (k // 32 + rs)[None, :])
        acc = tl.dot_scaled(a, sa, "e4m3", b, sb, "e4m3", acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def matmul_persistent(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                      NUM_PROGRAMS: tl.constexpr):
    """C = A @ B (bf16 in, f32 out, row-major) with a fixed number of programs looping over tiles."""
    num_n = tl.cdiv(N, BN)
    for tile in tl.range(tl.program_id(0), tl.cdiv(M, BM) * num_n, NUM_PROGRAMS, flatten=True):
        rm = tile // num_n * BM + tl.arange(0, BM)
        rn = tile % num_n * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
            b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
            acc = tl.dot(a, b, acc)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def matmul_ws(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
              NUM_PROGRAMS: tl.constexpr):
    """C (f16) = A @ B^T with device-built tensor descriptors, persistent over tiles with warp
    specialization (on sm_100a Triton splits the loop into TMA-load, MMA and epilogue partitions:
    8 warps, setmaxnreg, mbarrier pipelines between them). A is M x K, B is N x K, row-major."""
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    num_n = tl.cdiv(N, BN)
    for tile in tl.range(tl.program_id(0), tl.cdiv(M, BM) * num_n, NUM_PROGRAMS, flatten=True, warp_specialize=True):
        pm = tile // num_n
        pn = tile % num_n
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            a = a_desc.load([pm * BM, k])
            b = b_desc.load([pn * BN, k])
            acc = tl.dot(a, b.T, acc)
        c_desc.store([pm * BM, pn * BN], acc.to(tl.float16))
