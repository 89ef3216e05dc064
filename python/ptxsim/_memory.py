"""Arrays in ptxsim's simulated device memory, shaped like torch/cupy tensors so that Triton takes them.

data_ptr() is the simulated device address (what a kernel dereferences); the bytes live in host
memory that ptxsim owns, which is why .numpy() and __dlpack__ (a CPU view) are cheap.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from . import _core


class DType:
    """An element type numpy lacks (bfloat16, fp8): stored as raw bits in an unsigned integer of its size."""

    def __init__(self, name: str, storage: Any, is_floating_point: bool = True):
        self.name = name
        self.storage = np.dtype(storage)
        self.itemsize = self.storage.itemsize
        self.is_floating_point = is_floating_point

    def __repr__(self) -> str:
        # Triton names a tensor's element type by str(dtype).split(".")[-1] (as for "torch.bfloat16").
        return f"ptxsim.{self.name}"

    __str__ = __repr__


bfloat16 = DType("bfloat16", np.uint16)
float8_e4m3fn = DType("float8_e4m3fn", np.uint8)
float8_e5m2 = DType("float8_e5m2", np.uint8)
_SPECIAL = {d.name: d for d in (bfloat16, float8_e4m3fn, float8_e5m2)}


def _dtype(dtype: Any) -> Any:
    """A numpy dtype, or one of ptxsim's DTypes (also accepted by name, e.g. "bfloat16" or torch.bfloat16)."""
    if isinstance(dtype, DType):
        return dtype
    name = str(dtype).split(".")[-1]
    if name in _SPECIAL:
        return _SPECIAL[name]
    try:
        d = np.dtype(name if str(dtype).startswith("torch.") else dtype)
    except TypeError as e:
        raise TypeError(f"unsupported dtype {dtype!r}") from e
    if d.kind not in "biufc":  # objects, strings, records: nothing a kernel can read
        raise TypeError(f"unsupported dtype {dtype!r} (numbers only)")
    return d


def _storage(dtype: Any) -> np.dtype:
    return dtype.storage if isinstance(dtype, DType) else dtype


class _Allocation:
    """One device allocation; freed when the last array (or host view) using it goes away."""

    def __init__(self, nbytes: int, align: int = 256, name: str = ""):
        self.nbytes = nbytes
        self.addr = _core.alloc(nbytes, align, name)

    def host(self) -> np.ndarray:
        """The allocation's bytes as a writable uint8 numpy array that keeps this allocation alive."""
        return _core.view(self.addr, self.nbytes, self)

    def __del__(self) -> None:
        addr, self.addr = getattr(self, "addr", 0), 0
        if addr and _core is not None:
            try:
                _core.free(addr)
            except Exception:  # interpreter shutdown: nothing to free into
                pass


class DeviceArray:
    """An n-dimensional array in simulated device memory (torch-tensor conventions: strides in elements)."""

    def __init__(self, alloc: _Allocation, shape: Sequence[int], dtype: Any, strides: Sequence[int] | None = None,
                 offset: int = 0):
        self._alloc = alloc
        self.shape = tuple(int(s) for s in shape)
        self.dtype = dtype
        self._strides = tuple(int(s) for s in strides) if strides is not None else _contiguous(self.shape)
        self._offset = offset  # bytes from the allocation's start

    # ---- the torch-like protocol Triton uses -----------------------------------------------------
    def data_ptr(self) -> int:
        """The simulated device address of the first element."""
        return self._alloc.addr + self._offset

    def stride(self, dim: int | None = None):
        """Strides in elements (all of them, or of one dimension), as torch.Tensor.stride."""
        return self._strides if dim is None else self._strides[dim]

    def element_size(self) -> int:
        return self.dtype.itemsize

    def numel(self) -> int:
        return math.prod(self.shape)

    def dim(self) -> int:
        return len(self.shape)

    def size(self, dim: int | None = None):
        return self.shape if dim is None else self.shape[dim]

    def is_contiguous(self) -> bool:
        return self._strides == _contiguous(self.shape)

    @property
    def device(self) -> str:
        return "ptxsim"

    ndim = property(dim)
    nbytes = property(lambda self: self.numel() * self.element_size())

    # ---- host access ---------------------------------------------------------------------------
    def _host(self) -> np.ndarray:
        """A numpy view of this array's elements in the host memory behind the device memory."""
        isz, storage = self.element_size(), _storage(self.dtype)
        if self.numel() == 0:
            return np.empty(self.shape, storage)
        count = (self._alloc.nbytes - self._offset) // isz
        flat = self._alloc.host()[self._offset:self._offset + count * isz].view(storage)
        return np.lib.stride_tricks.as_strided(flat, self.shape, [s * isz for s in self._strides])

    def numpy(self) -> np.ndarray:
        """A host copy (bfloat16/fp8 as their raw bits: uint16/uint8)."""
        return np.array(self._host(), copy=True)

    def copy_(self, src: Any) -> "DeviceArray":
        """Copies a numpy array (or anything np.asarray takes, or another DeviceArray) into this one."""
        data = src.numpy() if isinstance(src, DeviceArray) else _host_array(src)
        storage = _storage(self.dtype)
        if isinstance(self.dtype, DType) and data.dtype != storage:
            if data.dtype.itemsize != storage.itemsize:
                raise TypeError(f"cannot copy {data.dtype} elements into a {self.dtype} array")
            data = data.view(storage)  # raw bits of the special type
        self._host()[...] = data
        return self

    def fill_(self, value: Any) -> "DeviceArray":
        self._host()[...] = value
        return self

    def __getitem__(self, index: Any) -> "DeviceArray":
        """Basic indexing and slicing give views, as for numpy and torch."""
        base = self._alloc.host()
        sub = self._host()[index]
        if not isinstance(sub, np.ndarray) or not np.shares_memory(sub, base):
            raise IndexError("only basic indexing (integers, slices) of a ptxsim array is supported")
        isz = self.element_size()
        offset = sub.__array_interface__["data"][0] - base.__array_interface__["data"][0]
        return DeviceArray(self._alloc, sub.shape, self.dtype, [s // isz for s in sub.strides], offset)

    def permute(self, *dims: int) -> "DeviceArray":
        dims = tuple(dims[0]) if len(dims) == 1 and not isinstance(dims[0], int) else dims
        return DeviceArray(self._alloc, [self.shape[d] for d in dims], self.dtype, [self._strides[d] for d in dims],
                           self._offset)

    @property
    def T(self) -> "DeviceArray":
        return self.permute(*reversed(range(self.ndim)))

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def __dlpack__(self, **kwargs: Any) -> Any:
        """A CPU DLPack capsule over the host memory behind this array (zero copy)."""
        return self._host().__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)  # kDLCPU: the simulated memory is host memory

    def __repr__(self) -> str:
        return f"ptxsim.DeviceArray(shape={self.shape}, dtype={self.dtype}, data_ptr=0x{self.data_ptr():x})"

    def __len__(self) -> int:
        return self.shape[0]


def _contiguous(shape: Sequence[int]) -> tuple[int, ...]:
    strides, acc = [], 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= max(int(s), 1)
    return tuple(reversed(strides))


def _shape(shape: Any) -> tuple[int, ...]:
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if any(int(s) < 0 for s in shape):
        raise ValueError(f"negative dimension in shape {shape}")
    return tuple(int(s) for s in shape)


def empty(shape: Any, dtype: Any = np.float32) -> DeviceArray:
    """An uninitialised (zero-filled by ptxsim, but do not rely on it) device array."""
    shape, dtype = _shape(shape), _dtype(dtype)
    name = f"ptxsim array {list(shape)} {dtype}"  # what a fault report calls it
    return DeviceArray(_Allocation(max(math.prod(shape) * dtype.itemsize, 1), name=name), shape, dtype)


def zeros(shape: Any, dtype: Any = np.float32) -> DeviceArray:
    """A zero-filled device array."""
    a = empty(shape, dtype)
    a._alloc.host()[:] = 0
    return a


def full(shape: Any, value: Any, dtype: Any = np.float32) -> DeviceArray:
    return empty(shape, dtype).fill_(value)


def _host_array(obj: Any) -> np.ndarray:
    """numpy view of anything with the buffer protocol, __array__ or a CPU DLPack (torch CPU tensors)."""
    if isinstance(obj, np.ndarray):
        return obj
    if hasattr(obj, "__dlpack__"):
        try:
            return np.from_dlpack(obj)
        except (TypeError, BufferError, RuntimeError):
            # numpy's DLPack lacks bfloat16/fp8: take the bits through an integer view (torch).
            if hasattr(obj, "view") and hasattr(obj, "element_size"):
                import torch  # only reached for torch tensors
                ints = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[obj.element_size()]
                return np.from_dlpack(obj.detach().cpu().view(ints)).view(f"u{obj.element_size()}")
            raise
    return np.asarray(obj)


def asarray(obj: Any, dtype: Any = None) -> DeviceArray:
    """Copies a host array (numpy, buffer protocol, DLPack such as a torch CPU tensor) into device memory.

    `dtype` reinterprets the element bits (e.g. a uint16 array as ptxsim.bfloat16); a torch tensor keeps
    its own dtype (torch.bfloat16 becomes ptxsim.bfloat16). A DeviceArray is returned as it is.
    """
    if isinstance(obj, DeviceArray):
        return obj
    host = np.ascontiguousarray(_host_array(obj))
    if dtype is None:
        src_dtype = getattr(obj, "dtype", host.dtype)
        dtype = _SPECIAL.get(str(src_dtype).split(".")[-1], host.dtype)
    dtype = _dtype(dtype)
    if host.dtype.itemsize != dtype.itemsize:
        raise TypeError(f"cannot view {host.dtype} elements as {dtype} (sizes differ)")
    out = empty(host.shape, dtype)
    out._alloc.host()[: host.nbytes] = host.reshape(-1).view(np.uint8)
    return out


def _is_torch_cpu(obj: Any) -> bool:
    return type(obj).__module__.startswith("torch") and getattr(getattr(obj, "device", None), "type", "") == "cpu"


def stage(obj: Any) -> tuple[Any, DeviceArray] | None:
    """A host argument (numpy array, torch CPU tensor) copied into device memory: (host, device), else None."""
    if isinstance(obj, np.ndarray) or _is_torch_cpu(obj):
        return obj, asarray(obj)
    return None


def unstage(host: Any, dev: DeviceArray) -> None:
    """Copies a staged argument back, as a GPU's memory would be read after a synchronize."""
    data = dev.numpy()
    if isinstance(host, np.ndarray):
        if host.flags.writeable:
            host[...] = data.view(host.dtype) if data.dtype != host.dtype else data
        return
    import torch
    ints = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[host.element_size()]
    host.view(ints).copy_(torch.from_numpy(data.view(f"i{host.element_size()}" if host.element_size() > 1 else "u1")))
