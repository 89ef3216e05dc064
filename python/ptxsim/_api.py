"""Loading PTX, laying out parameters and launching kernels (over sim/api.h)."""
from __future__ import annotations

import os
import struct
import sys
import warnings
from typing import Any, NamedTuple, Sequence

import numpy as np

from . import _core
from ._errors import ERRORS, Diagnostic, PtxsimWarning
from ._memory import DeviceArray, stage, unstage


class Param(NamedTuple):
    """One .param of a kernel as the PTX declares it."""
    name: str
    offset: int
    size: int
    align: int
    type: str  # declared type spelling: "u64", "f32", "b8" (arrays: size says how many bytes)
    is_pointer: bool


class LaunchResult(NamedTuple):
    """What a completed launch reports."""
    thread_instructions: int
    warp_instructions: int
    seconds: float
    diagnostics: list


class TensorMap:
    """A CUtensorMap (128 bytes) as cuTensorMapEncodeTiled / Im2col produce it; pass it as a kernel argument."""

    def __init__(self, raw: bytes, keepalive: Any = None):
        self.raw = bytes(raw)
        self._keepalive = keepalive  # the array whose memory the map addresses

    def __bytes__(self) -> bytes:
        return self.raw


def _dims(x: Any) -> Any:
    t = (int(x),) if isinstance(x, (int, np.integer)) else tuple(int(v) for v in x)
    if not 1 <= len(t) <= 3:
        raise ValueError(f"launch dimensions need 1 to 3 entries, got {x!r}")
    if any(v < 1 or v >= 2**32 for v in t):
        raise ValueError(f"launch dimensions must be in 1..2^32-1, got {x!r}")
    return t + (1,) * (3 - len(t))


def _address(arr: Any) -> int:
    return int(arr.data_ptr()) if hasattr(arr, "data_ptr") else int(arr)


class Kernel:
    """One .entry of a loaded module; call it with arguments in .param order, e.g.
    ``k(n, 2.0, x, y, grid=16, block=256)``. Arguments: int and float (packed by the declared type),
    device arrays (their address), numpy arrays and torch CPU tensors (copied in before, back after),
    TensorMap, bytes."""

    def __init__(self, module: "Module", name: str, params: Sequence[Any], param_bytes: int):
        self.module = module
        self.name = name
        self.params = [Param(*p) for p in params]
        self.param_bytes = param_bytes

    def pack(self, args: Sequence[Any]) -> bytes:
        """The parameter buffer for `args` (the layout the PTX declares)."""
        if len(args) != len(self.params):
            raise TypeError(f"kernel {self.name} takes {len(self.params)} arguments, got {len(args)}")
        buf = bytearray(self.param_bytes)
        for p, a in zip(self.params, args):
            buf[p.offset:p.offset + p.size] = _pack_one(p, a, self.name)
        return bytes(buf)

    def __call__(self, *args: Any, grid: Any = 1, block: Any = 1, cluster: Any = None, shared: int = 0,
                 seed: int = 0, max_instructions: int = 20_000_000_000, max_seconds: float = 300.0,
                 co_resident: bool = False) -> LaunchResult:
        """Launches the kernel and waits for it; raises KernelFault / KernelDeadlock / KernelTimeout /
        LaunchError with ptxsim's report when it does not complete."""
        staged = [stage(a) or (None, a) for a in args]
        params = self.pack([d for _, d in staged])
        r = launch_raw(self.module, self.name, params, grid=grid, block=block, cluster=cluster, shared=shared,
                       seed=seed, max_instructions=max_instructions, max_seconds=max_seconds,
                       co_resident=co_resident)
        for host, dev in staged:  # host arguments come back as a GPU's would after a synchronize
            if host is not None:
                unstage(host, dev)
        return r

    def __repr__(self) -> str:
        return f"ptxsim.Kernel({self.name}, params={[p.name for p in self.params]})"


def _pack_one(p: Param, a: Any, kernel: str) -> bytes:
    where = f"kernel {kernel} parameter {p.name} ({p.type}, {p.size} bytes)"
    if isinstance(a, TensorMap):
        a = a.raw
    if isinstance(a, (bytes, bytearray, memoryview)):
        b = bytes(a)
        if len(b) != p.size:
            raise TypeError(f"{where}: got {len(b)} bytes")
        return b
    if isinstance(a, DeviceArray) or hasattr(a, "data_ptr"):
        a = _address(a)
    if a is None:
        a = 0
    if isinstance(a, (np.generic,)) and a.dtype.itemsize == p.size and a.dtype.kind != "b":
        return a.tobytes()
    kind = p.type[:1]
    if kind == "f" and isinstance(a, (float, int, np.floating, np.integer)):
        fmt = {2: "e", 4: "f", 8: "d"}.get(p.size)
        if fmt is None:
            raise TypeError(f"{where}: unsupported float size")
        return struct.pack("<" + fmt, float(a))
    if isinstance(a, (bool, int, np.integer, np.bool_)):
        v = int(a)
        if p.size not in (1, 2, 4, 8):
            raise TypeError(f"{where}: an integer cannot fill it")
        if not -(1 << (8 * p.size - 1)) <= v < (1 << (8 * p.size)):
            raise OverflowError(f"{where}: {v} does not fit")
        return (v & ((1 << (8 * p.size)) - 1)).to_bytes(p.size, "little")
    if isinstance(a, float) and kind in "bsu":
        raise TypeError(f"{where}: got a float for an integer parameter")
    raise TypeError(f"{where}: cannot pass {type(a).__name__}")


class Module:
    """A loaded, decoded PTX module. ``module.kernel_name`` or ``module["kernel_name"]`` gives a Kernel."""

    def __init__(self, text: str, file_name: str = "<ptx>"):
        self._m = _core.load(text, file_name)
        self.file_name = file_name
        self.kernels = {name: Kernel(self, name, params, nbytes) for name, params, nbytes in _core.kernels(self._m)}

    def __getitem__(self, name: str) -> Kernel:
        try:
            return self.kernels[name]
        except KeyError:
            raise KeyError(f"no kernel named {name!r} in {self.file_name} (it has {list(self.kernels)})") from None

    def __getattr__(self, name: str) -> Kernel:
        if name.startswith("_") or name not in self.__dict__.get("kernels", {}):
            raise AttributeError(name)
        return self.kernels[name]


def load(source: str | os.PathLike, file_name: str | None = None) -> Module:
    """Loads PTX from text (anything containing a newline or '.entry') or from a file path.

    Raises ptxsim.PtxError (with file:line:col) for malformed or unsupported PTX."""
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"ptxsim.load takes PTX text or a path, not {type(source).__name__}")
    if isinstance(source, os.PathLike) or ("\n" not in source and ".entry" not in source):
        with open(source) as f:
            return Module(f.read(), file_name or os.fspath(source))
    return Module(source, file_name or "<ptx>")


def launch_raw(module: Module, kernel: str, params: bytes, *, grid: Any = 1, block: Any = 1, cluster: Any = None,
               shared: int = 0, seed: int = 0, max_instructions: int = 20_000_000_000, max_seconds: float = 300.0,
               co_resident: bool = False) -> LaunchResult:
    """Launches `kernel` with an already laid-out parameter buffer (what Kernel.__call__ does after pack)."""
    if not isinstance(shared, (int, np.integer)) or not 0 <= shared < 2**32:
        raise ValueError(f"dynamic shared memory must be 0..2^32-1 bytes, got {shared!r}")
    if max_instructions < 0 or max_seconds <= 0:
        raise ValueError("max_instructions must be >= 0 and max_seconds > 0")
    r = _core.launch(module._m, kernel, _dims(grid), _dims(block), _dims(cluster or 1), cluster is not None,
                     int(shared), int(seed) & (2**64 - 1), int(max_instructions), float(max_seconds),
                     bool(co_resident), np.frombuffer(params, dtype=np.uint8))
    if r["printf"]:
        sys.stdout.write(r["printf"])
    diags = [Diagnostic(*d) for d in r["diagnostics"]]
    stats = {k: r[k] for k in ("thread_instructions", "warp_instructions", "seconds")}
    if r["status"] != "completed":
        raise ERRORS.get(r["status"], ERRORS["error"])(r["report"], diags, stats, kernel)
    for d in diags:
        warnings.warn(PtxsimWarning(d.formatted or d.message), stacklevel=3)
    return LaunchResult(stats["thread_instructions"], stats["warp_instructions"], stats["seconds"], diags)


# CUtensorMapDataType by element type name (numpy or ptxsim dtype names).
TENSOR_MAP_DTYPES = {
    "uint8": 0, "uint16": 1, "uint32": 2, "int32": 3, "uint64": 4, "int64": 5, "float16": 6, "float32": 7,
    "float64": 8, "bfloat16": 9, "int8": 0, "int16": 1, "float8_e4m3fn": 0, "float8_e5m2": 0,
}


def encode_tiled(data_type: int, global_address: Any, global_dim: Sequence[int], global_strides: Sequence[int],
                 box_dim: Sequence[int], element_strides: Sequence[int] | None = None, interleave: int = 0,
                 swizzle: int = 0, l2_promotion: int = 0, oob_fill: int = 0) -> TensorMap:
    """cuTensorMapEncodeTiled with the driver's parameters and enum values: dimensions innermost first,
    `global_strides` the rank-1 byte strides of dimensions 1..rank-1. `global_address` may be a device
    array (kept alive by the map). Raises ValueError naming the rule a parameter breaks."""
    rank = len(global_dim)
    raw = _core.encode_tiled(int(data_type), _address(global_address), [int(v) for v in global_dim],
                             [int(v) for v in global_strides], [int(v) for v in box_dim],
                             [int(v) for v in (element_strides or [1] * rank)], interleave, swizzle, l2_promotion,
                             oob_fill)
    return TensorMap(raw, global_address)


def encode_im2col(data_type: int, global_address: Any, global_dim: Sequence[int], global_strides: Sequence[int],
                  pixel_box_lower_corner: Sequence[int], pixel_box_upper_corner: Sequence[int],
                  channels_per_pixel: int, pixels_per_column: int, element_strides: Sequence[int] | None = None,
                  interleave: int = 0, swizzle: int = 0, l2_promotion: int = 0, oob_fill: int = 0) -> TensorMap:
    """cuTensorMapEncodeIm2col (corners: rank-2 offsets, W first)."""
    rank = len(global_dim)
    raw = _core.encode_im2col(int(data_type), _address(global_address), [int(v) for v in global_dim],
                              [int(v) for v in global_strides], [int(v) for v in pixel_box_lower_corner],
                              [int(v) for v in pixel_box_upper_corner], int(channels_per_pixel),
                              int(pixels_per_column), [int(v) for v in (element_strides or [1] * rank)], interleave,
                              swizzle, l2_promotion, oob_fill)
    return TensorMap(raw, global_address)


def tensor_map(array: DeviceArray, box: Sequence[int], swizzle: int = 0, l2_promotion: int = 0,
               oob_fill: int = 0, data_type: int | None = None) -> TensorMap:
    """A tiled tensor map over a device array, in its own (outermost-first) axis order: `box` per axis."""
    if len(box) != array.ndim:
        raise ValueError(f"box has {len(box)} entries for a {array.ndim}-d array")
    if array.stride()[-1] != 1:
        raise ValueError("the innermost (last) axis of a tensor-mapped array must be contiguous")
    isz = array.element_size()
    dt = TENSOR_MAP_DTYPES.get(str(array.dtype).split(".")[-1]) if data_type is None else data_type
    if dt is None:
        raise TypeError(f"no tensor-map data type for {array.dtype}; pass data_type")
    dims = list(reversed(array.shape))
    strides = [s * isz for s in reversed(array.stride())][1:]
    return encode_tiled(dt, array, dims, strides, list(reversed(box)), None, 0, swizzle, l2_promotion, oob_fill)
