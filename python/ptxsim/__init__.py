"""ptxsim: a CPU simulator of NVIDIA PTX (sm_90a, sm_100a) for Python.

    import numpy as np, ptxsim
    mod = ptxsim.load("saxpy.ptx")                      # PTX text or a file
    x, y = ptxsim.asarray(np.ones(4096, np.float32)), ptxsim.zeros(4096)
    mod.saxpy(4096, 2.0, x, y, grid=16, block=256)      # raises KernelFault etc. with the report
    print(y.numpy()[:4])

Triton: ``ptxsim.triton.activate("sm_90a")`` (or PTXSIM_TRITON=sm_90a before importing ptxsim.triton)
makes @triton.jit kernels run on the simulator.
"""
from ._api import (LaunchResult, Kernel, Module, Param, TensorMap, encode_im2col, encode_tiled, launch_raw, load,
                   tensor_map)
from ._errors import (Diagnostic, KernelDeadlock, KernelFault, KernelTimeout, LaunchError, PtxError, PtxsimWarning,
                      SimulationError)
from ._memory import DeviceArray, DType, asarray, bfloat16, empty, float8_e4m3fn, float8_e5m2, full, zeros

__version__ = "0.1.0"

import os as _os

if _os.environ.get("PTXSIM_TRITON"):  # Triton on ptxsim from the environment alone
    from . import triton as _triton
    _triton.activate(_os.environ["PTXSIM_TRITON"])
__all__ = [
    "load", "Module", "Kernel", "Param", "LaunchResult", "launch_raw", "TensorMap", "encode_tiled", "encode_im2col",
    "tensor_map", "DeviceArray", "DType", "asarray", "empty", "zeros", "full", "bfloat16", "float8_e4m3fn",
    "float8_e5m2", "Diagnostic", "PtxError", "SimulationError", "LaunchError", "KernelFault", "KernelDeadlock",
    "KernelTimeout", "PtxsimWarning",
]
