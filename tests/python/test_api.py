"""The core Python API: loading, device arrays, parameter packing, launches, exceptions, warnings,
tensor maps. References are computed here with numpy, independently of ptxsim."""
import os
import warnings

import numpy as np
import pytest

import ptx_kernels as K
import ptxsim

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def test_saxpy_from_file(rng):
    mod = ptxsim.load(os.path.join(ROOT, "examples", "saxpy", "saxpy.ptx"))
    n = 3000  # not a multiple of the block: the bounds check matters
    x = rng.integers(-8, 8, n).astype(np.float32)
    y = rng.integers(-8, 8, n).astype(np.float32)
    dy = ptxsim.asarray(y)
    r = mod.saxpy(n, 3.0, ptxsim.asarray(x), dy, grid=(n + 255) // 256, block=256)
    np.testing.assert_array_equal(dy.numpy(), 3 * x + y)  # small integers: exact
    assert r.thread_instructions > n


def test_packing_and_numpy_round_trip(rng):
    """Mixed parameter sizes (u32, f32, u64, u16, u64) and a numpy output copied back after the launch."""
    k = ptxsim.load(K.AXPY).axpy
    assert [p.offset for p in k.params] == [0, 4, 8, 16, 24] and k.param_bytes == 32
    n = 1000
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n + 24).astype(np.float32)  # the tail past n must stay as it was
    want = y.copy()
    want[:n] = (np.float32(0.5) * x[:n].astype(np.float64) + y[:n]).astype(np.float32)  # fma: one rounding
    k(n, 0.5, x, 0xBEEF, y, grid=8, block=128)  # numpy arrays: copied in, and back out
    np.testing.assert_array_equal(y, want)


def test_device_array_protocol(rng):
    h = rng.integers(0, 1000, (6, 10)).astype(np.int32)
    a = ptxsim.asarray(h)
    assert a.shape == (6, 10) and a.stride() == (10, 1) and a.stride(0) == 10
    assert a.element_size() == 4 and a.numel() == 60 and a.dtype == np.int32
    assert a.data_ptr() % 256 == 0 and a.data_ptr() >= 0x7F0000000000
    np.testing.assert_array_equal(a.numpy(), h)
    np.testing.assert_array_equal(np.from_dlpack(a), h)  # CPU DLPack view of the simulated memory
    t = a.T
    assert t.shape == (10, 6) and t.stride() == (1, 10) and not t.is_contiguous()
    np.testing.assert_array_equal(t.numpy(), h.T)
    s = a[2:5, 3:]
    assert s.data_ptr() == a.data_ptr() + (2 * 10 + 3) * 4 and s.stride() == (10, 1)
    np.testing.assert_array_equal(s.numpy(), h[2:5, 3:])
    s.fill_(-1)
    h[2:5, 3:] = -1
    np.testing.assert_array_equal(a.numpy(), h)
    z = ptxsim.zeros((3, 4), np.float16)
    assert z.dtype == np.float16 and not z.numpy().any()
    b = ptxsim.asarray(np.array([0x3F80, 0x4000], np.uint16), dtype=ptxsim.bfloat16)
    assert str(b.dtype) == "ptxsim.bfloat16" and b.element_size() == 2
    np.testing.assert_array_equal(b.numpy(), [0x3F80, 0x4000])


def test_kernel_sees_device_writes_and_views(rng):
    """A kernel launched on a view writes where the view says (offset and all)."""
    k = ptxsim.load(K.AXPY).axpy
    buf = ptxsim.asarray(np.zeros(64, np.float32))
    x = ptxsim.asarray(np.ones(64, np.float32))
    k(8, 2.0, x, 0, buf[16:24], grid=1, block=32)
    want = np.zeros(64, np.float32)
    want[16:24] = 2
    np.testing.assert_array_equal(buf.numpy(), want)


def test_fault_raises_with_report():
    k = ptxsim.load(K.STORE_AT, "store.ptx").store_at
    a = ptxsim.zeros(16, np.uint32)
    with pytest.raises(ptxsim.KernelFault) as e:
        k(a, 1 << 20, grid=1, block=32)
    assert "illegal address" in str(e.value) and "store.ptx:9" in str(e.value)
    assert e.value.status == "fault" and e.value.report == str(e.value)
    assert e.value.diagnostics[0].line == 9
    k(a, 60, grid=1, block=1)  # in bounds: completes
    assert a.numpy()[15] == 7 and not a.numpy()[:15].any()


def test_deadlock_and_timeout_raise():
    with pytest.raises(ptxsim.KernelDeadlock, match="32 of 64 arrival"):
        ptxsim.load(K.HANG).hang(grid=1, block=32)
    with pytest.raises(ptxsim.KernelDeadlock, match="spin-wait hang: .* reading no memory"):
        ptxsim.load(K.SPIN).spin(grid=1, block=32, max_instructions=10_000_000)
    with pytest.raises(ptxsim.KernelTimeout, match="instruction budget"):
        ptxsim.load(K.COUNT).count(grid=1, block=32, max_instructions=10_000)
    assert issubclass(ptxsim.KernelTimeout, ptxsim.SimulationError)


def test_launch_errors():
    k = ptxsim.load(K.AXPY).axpy
    x = ptxsim.zeros(4)
    with pytest.raises(ptxsim.LaunchError, match="1024-thread limit"):
        k(4, 1.0, x, 0, x, grid=1, block=2048)
    with pytest.raises(TypeError, match="takes 5 arguments"):
        k(4, 1.0, x, grid=1, block=32)
    with pytest.raises(OverflowError):
        k(1 << 40, 1.0, x, 0, x, grid=1, block=32)
    with pytest.raises(TypeError, match="cannot pass str"):
        k("4", 1.0, x, 0, x, grid=1, block=32)
    with pytest.raises(ValueError):
        k(4, 1.0, x, 0, x, grid=0, block=32)


def test_bad_ptx_raises_ptx_error():
    with pytest.raises(ptxsim.PtxError) as e:
        ptxsim.load(K.HEAD + ".visible .entry k()\n{\n  frobnicate.u32 %r1;\n}\n", "bad.ptx")
    assert e.value.diagnostic.file == "bad.ptx" and e.value.diagnostic.line == 6
    with pytest.raises(FileNotFoundError):
        ptxsim.load("/nonexistent/file.ptx")


def test_warning_through_python_warnings():
    k = ptxsim.load(K.RACE, "race.ptx").race
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = k(ptxsim.zeros(4, np.uint32), grid=1, block=1)
    assert len(w) == 1 and issubclass(w[0].category, ptxsim.PtxsimWarning)
    assert "race on an asynchronous copy" in str(w[0].message) and r.diagnostics[0].severity == "warning"


def test_printf_goes_to_sys_stdout(capsys):
    ptxsim.load(K.PRINTF).say(1234, grid=1, block=2)
    assert capsys.readouterr().out == "v=1234\nv=1234\n"


def test_tensor_map_encoding():
    a = ptxsim.zeros((64, 48), np.float16)
    m = ptxsim.tensor_map(a, (16, 32), swizzle=2)
    assert len(m.raw) == 128 and m.raw != bytes(128)
    same = ptxsim.encode_tiled(6, a.data_ptr(), [48, 64], [96], [32, 16], [1, 1], 0, 2, 0, 0)
    assert same.raw == m.raw
    with pytest.raises(ValueError, match="16 bytes"):  # a 3-element f16 box row is 6 bytes
        ptxsim.encode_tiled(6, a, [48, 64], [96], [3, 16])
    with pytest.raises(ValueError, match="rank-1 entries"):
        ptxsim.encode_tiled(6, a, [48, 64], [], [32, 16])


def test_memory_is_freed():
    from ptxsim import _core
    before = _core.stats()[0]
    a = ptxsim.empty(1 << 20, np.uint8)
    assert _core.stats()[0] >= before + (1 << 20)
    del a
    assert _core.stats()[0] == before


class _DlpackOnly:
    """Something that offers nothing but DLPack (as torch tensors and cupy arrays do)."""

    def __init__(self, a):
        self._a = a

    def __dlpack__(self, **kwargs):
        return self._a.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


def test_asarray_from_dlpack_and_buffer_protocol(rng):
    import array
    h = rng.integers(-50, 50, (4, 5)).astype(np.int16)
    d = ptxsim.asarray(_DlpackOnly(h))
    assert d.dtype == np.int16 and d.shape == (4, 5)
    np.testing.assert_array_equal(d.numpy(), h)
    buf = array.array("f", [1.5, -2.0, 3.25])
    np.testing.assert_array_equal(ptxsim.asarray(buf).numpy(), np.array([1.5, -2.0, 3.25], np.float32))
    with pytest.raises(TypeError, match="sizes differ"):
        ptxsim.asarray(h, dtype=ptxsim.float8_e4m3fn)


def test_im2col_encoding():
    x = ptxsim.zeros((1, 8, 8, 64), np.float16)  # NHWC
    dims, strides = [64, 8, 8, 1], [128, 1024, 8192]  # innermost first; byte strides of W, H, N
    m = ptxsim.encode_im2col(6, x, dims, strides, [-1, -1], [-1, -1], 64, 32, swizzle=3)
    assert len(m.raw) == 128 and m.raw != bytes(128)
    with pytest.raises(ValueError, match="rank-2 entries"):
        ptxsim.encode_im2col(6, x, dims, strides, [-1], [-1], 64, 32)


def test_bad_arguments_are_python_errors():
    with pytest.raises(TypeError):
        ptxsim.load(123)
    with pytest.raises(ValueError, match="negative"):
        ptxsim.empty((-1, 4))
    with pytest.raises(TypeError, match="unsupported dtype"):
        ptxsim.zeros(4, dtype=object)
    a = ptxsim.zeros(8)
    with pytest.raises(IndexError):
        a[[1, 2]]
    with pytest.raises(ValueError, match="live ptxsim allocation"):
        ptxsim._core.free(12345)


def test_cluster_and_dynamic_shared_reach_the_kernel():
    k = ptxsim.load(K.WHERE).where
    out = ptxsim.full(6, 0xFFFFFFFF, np.uint32)
    k(out, grid=6, block=32, cluster=3, shared=1000)
    np.testing.assert_array_equal(out.numpy(), [(r << 24) | 1000 for r in (0, 1, 2, 0, 1, 2)])
    with pytest.raises(ptxsim.LaunchError, match="multiples of the cluster"):
        k(out, grid=4, block=32, cluster=3)


def test_torch_cpu_tensors(rng):
    """torch CPU tensors as kernel arguments (copied in and back like numpy) and through asarray /
    DLPack. CI's venv has no torch (its wheel is gigabytes); this runs wherever torch is installed."""
    torch = pytest.importorskip("torch")
    mod = ptxsim.load(os.path.join(ROOT, "examples", "saxpy", "saxpy.ptx"))
    n = 2000
    x = torch.from_numpy(rng.integers(-8, 8, n).astype(np.float32))
    y = torch.from_numpy(rng.integers(-8, 8, n).astype(np.float32))
    want = 3 * x.numpy() + y.numpy()
    mod.saxpy(n, 3.0, x, y, grid=(n + 255) // 256, block=256)  # y written back into the tensor
    np.testing.assert_array_equal(y.numpy(), want)
    d = ptxsim.asarray(x)
    assert d.shape == (n,) and d.dtype == np.float32
    np.testing.assert_array_equal(torch.from_dlpack(d).numpy(), x.numpy())
