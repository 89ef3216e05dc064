"""Triton on ptxsim: unmodified @triton.jit and Gluon kernels launch on the simulator.

    import ptxsim.triton
    ptxsim.triton.activate("sm_90a")     # or PTXSIM_TRITON=sm_90a in the environment before `import ptxsim`

How it plugs in (Triton 3.9's own extension points, no GPU, no CUDA driver):
- triton.runtime.driver.set_active(PtxsimDriver): the target is GPUTarget("cuda", 90 or 100, 32), so
  Triton's NVIDIA compiler still produces the PTX; the driver's utils load it into ptxsim and its
  launcher lays out the parameters and calls ptxsim's in-process launch.
- knobs.runtime.add_stages_inspection_hook: the last stage ("cubin") hands the PTX text on instead of
  running ptxas (and the hook's key keeps these kernels apart from real cubins in Triton's cache).
- triton.set_allocator (when none is set): global scratch (device-side tensor descriptors) in ptxsim memory.
- Plain numpy arguments: JITFunction.run is wrapped to copy them in before and back after.

Autotuning: each config runs once; the benchmarker returns the simulated warp-instructions of that
run (not time: a simulator's wall time says nothing about the GPU), so the fewest-instruction config wins.
"""
from __future__ import annotations

import functools
import os
from typing import Any

import numpy as np

from ._api import LaunchResult, Module, encode_im2col, encode_tiled
from ._memory import DeviceArray, _Allocation, stage, unstage

ARCHS = {"sm_90a": 90, "sm_100a": 100}
# What the launcher reports through get_device_properties (H100 SXM / B200 SM counts).
_SMS = {90: 132, 100: 148}
_MAX_SHARED = 232448

_state: dict[str, Any] = {"arch": None, "seed": 0, "max_instructions": 20_000_000_000, "max_seconds": 300.0}
last_launch: LaunchResult | None = None  # the stats of the most recent Triton launch
_instructions = [0]  # warp-instructions launched so far (what the benchmarker measures)
launches = 0  # Triton launches run on ptxsim so far


def _stages_hook(backend=None, stages=None, options=None, language=None, capability=None):
    """knobs.runtime.add_stages_inspection_hook: called with no arguments for a cache key, and with the
    stages to edit. The "cubin" stage returns the PTX itself (bytes), which PtxsimUtils.load_binary loads.
    A hook that was installed before activate() still runs (first)."""
    prev = _state.get("prev_hook")
    if backend is None:
        key, digest = prev() if prev else ("", "")
        return key + "ptxsim-ptx-binary-v1", digest + "ptxsim-ptx-binary-v1"
    if prev:
        prev(backend, stages, options, language, capability)
    stages["cubin"] = lambda src, metadata: src.encode()


class PtxsimUtils:
    """The driver utilities Triton's runtime calls (the CUDA driver's role, played by ptxsim)."""

    def load_binary(self, name, kernel, shared, device):
        text = kernel.decode() if isinstance(kernel, bytes) else kernel
        if not text.lstrip().startswith("//") and ".entry" not in text:
            raise RuntimeError("ptxsim.triton: the compiled kernel is not PTX (was it compiled before activate()?)")
        module = Module(text, f"{name}.ptx")
        return module, module[name], 0, 0, 1024  # module, function, n_regs, n_spills, max threads

    def unload_module(self, module):
        pass

    def get_device_properties(self, device):
        cap = ARCHS[_state["arch"]]
        return {"max_shared_mem": _MAX_SHARED, "max_num_regs": 65536, "multiprocessor_count": _SMS[cap],
                "warpSize": 32, "sm_clock_rate": 1755000, "mem_clock_rate": 2619000, "mem_bus_width": 5120}

    def get_current_device(self):
        return 0

    def set_current_device(self, device):
        pass

    def get_device_capability(self, device):
        return divmod(ARCHS[_state["arch"]], 10)

    def set_printf_fifo_size(self, size):
        pass

    def fill_tma_descriptor_tiled(self, ptr, swizzle, elem_size, elem_type, block_size, shape, strides, padding):
        """cuTensorMapEncodeTiled as Triton's launcher calls it: dims innermost first, byte strides, element
        strides 1, L2 promotion 128B; `padding` 1 = NaN fill."""
        rank = len(shape)
        dims = [int(s) for s in reversed(shape)]
        byte_strides = [int(s) * elem_size for s in reversed(strides)][1:]
        box = [int(b) for b in reversed(block_size)]
        return encode_tiled(elem_type, ptr, dims, byte_strides, box, [1] * rank, 0, swizzle, 2, int(padding))

    def fill_tma_descriptor_im2col(self, ptr, swizzle, elem_size, elem_type, block_size, shape, strides, padding,
                                   lower, upper, element_strides):
        rank = len(shape)
        dims = [int(s) for s in reversed(shape)]
        byte_strides = [int(s) * elem_size for s in reversed(strides)][1:]
        pixels, channels = int(block_size[0]), int(block_size[1])
        return encode_im2col(elem_type, ptr, dims, byte_strides, list(reversed(lower)), list(reversed(upper)),
                             channels, pixels, list(reversed(element_strides)) or [1] * rank, 0, swizzle, 2,
                             int(padding))


def _tensordesc_arg(desc: Any, meta: dict | None) -> list:
    """A host-side TensorDescriptor as the kernel receives it: with TMA metadata the CUtensorMap, then the
    shape (i32 each) and strides (i64 each); without, Triton's own decomposition into pointer and sizes."""
    from triton.backends.driver import decompose_descriptor
    if meta is None:
        return decompose_descriptor(desc)
    from triton.backends.nvidia.driver import TMA_DTYPE_DEVICE_TO_HOST, TMA_TF32
    shape, strides = list(desc.shape), list(desc.strides)
    if strides[-1] != 1:
        raise ValueError("a tensor descriptor's last dimension must be contiguous")
    elem_type = TMA_TF32 if desc.round_f32_to_tf32 else meta["elem_type"]
    expanded = shape[:-1] + [shape[-1] * 2] if meta["fp4_padded"] else shape
    padding = 1 if desc.padding == "nan" else 0
    utils = PtxsimUtils()
    if meta.get("is_im2col", False):
        es = desc.element_strides if desc.element_strides is not None else [1] * len(shape)
        tmap = utils.fill_tma_descriptor_im2col(desc.base.data_ptr(), meta["swizzle"], meta["elem_size"],
                                                TMA_DTYPE_DEVICE_TO_HOST[elem_type], meta["block_size"], expanded,
                                                strides, padding, desc.pixel_box_lower_corner,
                                                desc.pixel_box_upper_corner, es)
    else:
        tmap = utils.fill_tma_descriptor_tiled(desc.base.data_ptr(), meta["swizzle"], meta["elem_size"],
                                               TMA_DTYPE_DEVICE_TO_HOST[elem_type], meta["block_size"], expanded,
                                               strides, padding)
    tmap._keepalive = desc.base
    return [tmap, *shape, *strides]


def _scalar(ty: str, v: Any) -> Any:
    """fp16/bf16 scalars go in as their 16 bits (Triton passes them as 16-bit parameters)."""
    if ty == "fp16":
        return np.float16(v).tobytes()
    if ty == "bf16":
        bits = int(np.float32(v).view(np.uint32))
        bits += 0x7FFF + ((bits >> 16) & 1)  # round to nearest even
        return ((bits >> 16) & 0xFFFF).to_bytes(2, "little")
    return v


class PtxsimLauncher:
    """driver.launcher_cls: built once per compiled kernel, called for every launch."""

    def __init__(self, src, metadata):
        self.signature = list(src.signature.values())
        self.tensordesc_meta = getattr(metadata, "tensordesc_meta", None) or None
        self.num_ctas = getattr(metadata, "num_ctas", 1)
        self.threads = 32 * metadata.num_warps
        self.shared = metadata.shared
        self.scratch = (metadata.global_scratch_size, metadata.global_scratch_align)
        self.profile_scratch = (metadata.profile_scratch_size, metadata.profile_scratch_align)
        self.cooperative = bool(metadata.launch_cooperative_grid)

    def _flatten(self, sig: Any, arg: Any, out: list, descs: list) -> None:
        if isinstance(sig, tuple):
            for s, a in zip(sig, arg):
                self._flatten(s, a, out, descs)
        elif sig == "constexpr":
            return
        elif isinstance(sig, str) and sig.startswith("tensordesc"):
            meta = self.tensordesc_meta[len(descs)] if self.tensordesc_meta else None
            descs.append(arg)
            out.extend(_tensordesc_arg(arg, meta))
        else:
            out.append(_scalar(sig, arg))

    def __call__(self, gx, gy, gz, stream, function, packed_metadata, launch_metadata, enter_hook, exit_hook, *args):
        global last_launch, launches
        from triton.runtime import _allocation
        flat: list = []
        descs: list = []  # descriptors so far: the i-th takes tensordesc_meta[i]
        for sig, arg in zip(self.signature, args):
            self._flatten(sig, arg, flat, descs)
        programs = gx * gy * gz
        keep = []  # scratch buffers live until the launch is over

        def scratch(size_align, allocator):
            size, align = size_align
            if not size or not programs:
                return 0
            buf = allocator(size * programs * self.num_ctas, align, stream)
            keep.append(buf)
            return buf.data_ptr()

        flat.append(scratch(self.scratch, _allocation._allocator.get()))
        flat.append(scratch(self.profile_scratch, _scratch_allocator))
        if programs == 0:
            return
        if enter_hook is not None and launch_metadata is not None:
            enter_hook(launch_metadata)
        cluster = (self.num_ctas, 1, 1) if self.num_ctas > 1 else None
        last_launch = function(*flat, grid=(gx * self.num_ctas, gy, gz), block=self.threads, cluster=cluster,
                               shared=self.shared, seed=_state["seed"], max_instructions=_state["max_instructions"],
                               max_seconds=_state["max_seconds"], co_resident=self.cooperative)
        _instructions[0] += last_launch.warp_instructions
        launches += 1
        if exit_hook is not None and launch_metadata is not None:
            exit_hook(launch_metadata)


def _scratch_allocator(size: int, alignment: int, stream: Any) -> DeviceArray:
    """Triton's Allocator protocol over ptxsim memory (global scratch, device-side tensor descriptors)."""
    alloc = _Allocation(max(int(size), 1), max(256, int(alignment)), "triton scratch")
    return DeviceArray(alloc, (int(size),), np.dtype(np.int8))


def benchmark(kernel_call, quantiles=None, **kwargs):
    """The driver's benchmarker (do_bench on ptxsim): runs kernel_call once and returns the simulated
    warp-instructions it launched, once per requested quantile (the autotuner picks the smallest)."""
    before = _instructions[0]
    kernel_call()
    n = float(_instructions[0] - before)
    return [n] * len(quantiles) if quantiles else n


def _make_driver_class():
    from triton.backends.driver import DriverBase
    from triton.backends.compiler import GPUTarget

    class PtxsimDriver(DriverBase):
        """Triton's active driver while ptxsim.triton is activated."""

        def __init__(self):
            self.utils = PtxsimUtils()
            self.launcher_cls = PtxsimLauncher

        @classmethod
        def is_active(cls):
            return _state["arch"] is not None

        def map_python_to_cpp_type(self, ty):
            from triton.backends.nvidia.driver import ty_to_cpp
            return ty_to_cpp(ty)

        def get_current_target(self):
            return GPUTarget("cuda", ARCHS[_state["arch"]], 32)

        def get_current_device(self):
            # One device number per arch: Triton caches the target per device, so a switch of arch
            # must look like another device to recompile.
            return list(ARCHS).index(_state["arch"])

        def set_current_device(self, device):
            pass

        def get_current_stream(self, device=None):
            return 0

        def get_device_capability(self, device=None):
            return divmod(ARCHS[_state["arch"]], 10)

        def get_active_torch_device(self):
            import torch
            return torch.device("cpu")

        def get_device_interface(self):
            raise NotImplementedError("ptxsim has no torch device interface")

        def get_benchmarker(self):
            return benchmark

        def get_empty_cache_for_benchmark(self):
            return None

        def clear_cache(self, cache):
            pass

        def allocate_default_profile_scratch(self, size, alignment, stream):
            return _scratch_allocator(size, alignment, stream)

    return PtxsimDriver


def _wrap_run(run):
    """JITFunction.run with host arguments (numpy arrays, torch CPU tensors) staged in and back out."""
    @functools.wraps(run)
    def wrapped(self, *args, **kwargs):
        pairs = []

        def conv(a):
            st = stage(a)
            if st is None:
                return a
            pairs.append(st)
            return st[1]
        out = run(self, *map(conv, args), **{k: conv(v) for k, v in kwargs.items()})
        for host, dev in pairs:
            unstage(host, dev)
        return out
    wrapped._ptxsim_original = run
    return wrapped


def activate(arch: str | None = None, *, seed: int = 0, max_instructions: int = 20_000_000_000,
             max_seconds: float = 300.0) -> None:
    """Makes Triton compile for `arch` ("sm_90a" or "sm_100a"; default $PTXSIM_TRITON or sm_90a) and launch on
    ptxsim. `seed` perturbs warp interleaving; the budgets bound each launch (KernelTimeout beyond them)."""
    arch = arch or os.environ.get("PTXSIM_TRITON") or "sm_90a"
    if arch not in ARCHS:
        raise ValueError(f"ptxsim.triton: arch must be one of {sorted(ARCHS)}, got {arch!r}")
    import triton
    from triton import knobs
    from triton.runtime import _allocation, driver
    from triton.runtime.jit import JITFunction
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # Triton 3.9's default, stated (silences its warning)
    if _state["arch"] is None:
        _state["driver"] = _make_driver_class()()
    _state.update(arch=arch, seed=seed, max_instructions=max_instructions, max_seconds=max_seconds)
    driver.set_active(_state["driver"])
    if knobs.runtime.add_stages_inspection_hook is not _stages_hook:
        _state["prev_hook"] = knobs.runtime.add_stages_inspection_hook
        knobs.runtime.add_stages_inspection_hook = _stages_hook
    if isinstance(_allocation._allocator.get(), _allocation.NullAllocator):
        triton.set_allocator(_scratch_allocator)
    if not hasattr(JITFunction.run, "_ptxsim_original"):
        JITFunction.run = _wrap_run(JITFunction.run)


def deactivate() -> None:
    """Removes the hooks activate() installed and gives Triton back its default driver when there is one
    (without a GPU there is none: ptxsim's driver then stays, so Triton can still unload its kernels)."""
    from triton import knobs
    from triton.runtime import driver
    from triton.runtime.jit import JITFunction
    if knobs.runtime.add_stages_inspection_hook is _stages_hook:
        knobs.runtime.add_stages_inspection_hook = _state.pop("prev_hook", None)
    if hasattr(JITFunction.run, "_ptxsim_original"):
        JITFunction.run = JITFunction.run._ptxsim_original
    try:
        default = driver.default
    except RuntimeError:  # no GPU driver here: keep ptxsim's, so compiled kernels can still be unloaded
        return
    _state["arch"] = None
    driver.set_active(default)


def do_bench(fn, quantiles=None, **kwargs):
    """triton.testing.do_bench's signature on ptxsim: simulated warp-instructions of one run of fn."""
    return benchmark(fn, quantiles=quantiles)
