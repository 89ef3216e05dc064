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


# ---- Kernels in the style of Triton's tutorials (persistent TMA matmul, fused attention with
# tensor descriptors, block-scaled matmul, grouped GEMM). Written for ptxsim; the tutorials' facts
# (descriptor layouts, the packed scale-factor layout, the fp4 padding rule) carry over, not their code.

@triton.jit
def matmul_tma_persistent(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                          NUM_PROGRAMS: tl.constexpr):
    """C (f32) = A @ B^T with host-side tensor descriptors (triton.tools.tensor_descriptor.TensorDescriptor:
    the CUtensorMap is a kernel parameter, followed by the shape and strides), persistent over tiles.
    A is M x K, B is N x K (K-major), C is M x N."""
    num_n = tl.cdiv(N, BN)
    for tile in tl.range(tl.program_id(0), tl.cdiv(M, BM) * num_n, NUM_PROGRAMS, flatten=True):
        pm = tile // num_n
        pn = tile % num_n
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            a = a_desc.load([pm * BM, k])
            b = b_desc.load([pn * BN, k])
            acc = tl.dot(a, b.T, acc)
        c_desc.store([pm * BM, pn * BN], acc)


@triton.jit
def matmul_device_tma_persistent(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                                 BK: tl.constexpr, NUM_PROGRAMS: tl.constexpr):
    """C (f16) = A @ B^T, e4m3 inputs, with descriptors built on the device (tl.make_tensor_descriptor),
    persistent over tiles, and the epilogue stored as two BM x BN/2 halves (acc split along N)."""
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN // 2])
    num_m = tl.cdiv(M, BM)
    for tile in tl.range(tl.program_id(0), num_m * tl.cdiv(N, BN), NUM_PROGRAMS, flatten=True):
        pm = tile % num_m  # column-major tile order
        pn = tile // num_m
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            acc = tl.dot(a_desc.load([pm * BM, k]), b_desc.load([pn * BN, k]).T, acc)
        halves = tl.reshape(acc, (BM, 2, BN // 2)).permute(0, 2, 1)
        lo, hi = tl.split(halves)
        c_desc.store([pm * BM, pn * BN], lo.to(tl.float16))
        c_desc.store([pm * BM, pn * BN + BN // 2], hi.to(tl.float16))


@triton.jit
def attention_tma(q_desc, k_desc, v_desc, o_desc, seq_len, sm_scale, HEAD: tl.constexpr, BM: tl.constexpr,
                  BN: tl.constexpr, CAUSAL: tl.constexpr):
    """Flash-attention forward over batch x heads with host-side tensor descriptors: Q, K, V, O are
    (heads * seq_len) x HEAD f16 (one head's rows after another); program (i, h) computes rows
    i*BM.. of head h. Causal: the blocks left of the diagonal band without a mask, then the band
    with one (two loops, as the tutorials split them)."""
    start_m = tl.program_id(0) * BM
    row0 = tl.program_id(1) * seq_len
    rm = start_m + tl.arange(0, BM)
    q = q_desc.load([row0 + start_m, 0])
    m_i = tl.full((BM,), -float("inf"), tl.float32)
    l_i = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, HEAD), tl.float32)
    qk_scale = sm_scale * 1.44269504
    hi = start_m if CAUSAL else seq_len
    for start_n in range(0, hi, BN):
        k = k_desc.load([row0 + start_n, 0])
        qk = tl.dot(q, k.T) * qk_scale
        m_new = tl.maximum(m_i, tl.max(qk, axis=1))
        p = tl.math.exp2(qk - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v_desc.load([row0 + start_n, 0]))
        m_i = m_new
    if CAUSAL:
        for start_n in range(start_m, start_m + BM, BN):
            rn = start_n + tl.arange(0, BN)
            k = k_desc.load([row0 + start_n, 0])
            qk = tl.dot(q, k.T) * qk_scale
            qk = tl.where(rm[:, None] >= rn[None, :], qk, -float("inf"))
            m_new = tl.maximum(m_i, tl.max(qk, axis=1))
            p = tl.math.exp2(qk - m_new[:, None])
            alpha = tl.math.exp2(m_i - m_new)
            l_i = l_i * alpha + tl.sum(p, axis=1)
            acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v_desc.load([row0 + start_n, 0]))
            m_i = m_new
    o_desc.store([row0 + start_m, 0], (acc / l_i[:, None]).to(tl.float16))


@triton.jit
def matmul_block_scaled(a_desc, as_ptr, b_desc, bs_ptr, c_desc, M, N, K, A_FMT: tl.constexpr, B_FMT: tl.constexpr,
                        VEC: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """C (f32) = (A * sA) @ (B * sB)^T with tl.dot_scaled. A is M x K and B is N x K (K-major; e2m1
    operands packed two per byte along K, low nibble first), loaded through host-side tensor
    descriptors. One scale per VEC elements of K (UE8M0 for e4m3 / mxfp, E4M3 for nvfp4), stored in
    the packed 5D layout [MN/128, K/VEC/4, 32, 4, 4]: the scale of row r, K-group g sits at
    [r/128, g/4, r%32, (r%128)/32, g%4]. One tile per program."""
    A_PER_BYTE: tl.constexpr = 2 if A_FMT == "e2m1" else 1
    B_PER_BYTE: tl.constexpr = 2 if B_FMT == "e2m1" else 1
    SK: tl.constexpr = BK // VEC // 4  # 4-group chunks of scales per K block
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    chunk = tl.arange(0, SK * 512)
    k_chunks = K // VEC // 4
    sa_ptrs = as_ptr + (pm * (BM // 128) + tl.arange(0, BM // 128))[:, None] * (k_chunks * 512) + chunk[None, :]
    sb_ptrs = bs_ptr + (pn * (BN // 128) + tl.arange(0, BN // 128))[:, None] * (k_chunks * 512) + chunk[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for kb in range(0, K // BK):
        a = a_desc.load([pm * BM, kb * (BK // A_PER_BYTE)])
        b = b_desc.load([pn * BN, kb * (BK // B_PER_BYTE)])
        sa = tl.load(sa_ptrs + kb * SK * 512).reshape(BM // 128, SK, 32, 4, 4).trans(0, 3, 2, 1, 4)
        sb = tl.load(sb_ptrs + kb * SK * 512).reshape(BN // 128, SK, 32, 4, 4).trans(0, 3, 2, 1, 4)
        acc = tl.dot_scaled(a, sa.reshape(BM, BK // VEC), A_FMT, b.T, sb.reshape(BN, BK // VEC), B_FMT, acc)
    c_desc.store([pm * BM, pn * BN], acc)


@triton.jit
def grouped_gemm(a_ptrs, b_ptrs, c_ptrs, sizes, lds, NUM_GROUPS: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                 BK: tl.constexpr, NUM_PROGRAMS: tl.constexpr):
    """Several independent GEMMs C_g = A_g @ B_g (bf16 in, f32 out, row-major) in one launch. Problem
    g's pointers are a_ptrs[g], b_ptrs[g], c_ptrs[g] (u64 arrays), its sizes sizes[3g..3g+2] = M, N, K
    and its leading dimensions lds[3g..3g+2]. NUM_PROGRAMS programs walk the tiles of all problems
    in order, each taking every NUM_PROGRAMS-th tile."""
    pid = tl.program_id(0)
    first = 0  # index of the first tile of the current problem
    for g in range(NUM_GROUPS):
        m = tl.load(sizes + 3 * g)
        n = tl.load(sizes + 3 * g + 1)
        k = tl.load(sizes + 3 * g + 2)
        num_n = tl.cdiv(n, BN)
        count = tl.cdiv(m, BM) * num_n
        a = tl.load(a_ptrs + g).to(tl.pointer_type(tl.bfloat16))
        b = tl.load(b_ptrs + g).to(tl.pointer_type(tl.bfloat16))
        c = tl.load(c_ptrs + g).to(tl.pointer_type(tl.float32))
        lda = tl.load(lds + 3 * g)
        ldb = tl.load(lds + 3 * g + 1)
        ldc = tl.load(lds + 3 * g + 2)
        # this program's first tile in [first, first + count)
        t = first + (pid - first % NUM_PROGRAMS + NUM_PROGRAMS) % NUM_PROGRAMS
        while t < first + count:
            local = t - first
            rm = local // num_n * BM + tl.arange(0, BM)
            rn = local % num_n * BN + tl.arange(0, BN)
            rk = tl.arange(0, BK)
            acc = tl.zeros((BM, BN), dtype=tl.float32)
            for kk in range(0, k, BK):
                av = tl.load(a + rm[:, None] * lda + (kk + rk)[None, :], mask=(rm[:, None] < m), other=0.0)
                bv = tl.load(b + (kk + rk)[:, None] * ldb + rn[None, :], mask=(rn[None, :] < n), other=0.0)
                acc = tl.dot(av, bv, acc)
            tl.store(c + rm[:, None] * ldc + rn[None, :], acc, mask=(rm[:, None] < m) & (rn[None, :] < n))
            t += NUM_PROGRAMS
        first += count
