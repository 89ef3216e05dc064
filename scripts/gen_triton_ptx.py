#!/usr/bin/env python3
"""Compiles ptxsim's own Triton kernels (tests/triton/kernels.py) to PTX for sm_90a and sm_100a.

Needs Triton (pip install triton numpy); no GPU. Writes tests/triton/<name>.<arch>.ptx and
tests/triton/manifest.json (per kernel and arch: the entry, threads per CTA, dynamic shared bytes,
and the Triton version). CI does not run this: the generated PTX is committed.
"""
import json
import os
import sys

import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "triton")
sys.path.insert(0, HERE)
import kernels  # noqa: E402

# name -> (function, signature, constexprs, options)
I32 = "i32"
BUILDS = {
    "matmul_bf16": (kernels.matmul,
                    {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*fp32", "M": I32, "N": I32, "K": I32,
                     "stride_am": I32, "stride_ak": I32, "stride_bk": I32, "stride_bn": I32, "stride_cm": I32,
                     "stride_cn": I32},
                    {"BM": 128, "BN": 128, "BK": 64}, {"num_warps": 4, "num_stages": 3}),
    "matmul_fp8": (kernels.matmul,
                   {"a_ptr": "*fp8e4nv", "b_ptr": "*fp8e4nv", "c_ptr": "*fp32", "M": I32, "N": I32, "K": I32,
                    "stride_am": I32, "stride_ak": I32, "stride_bk": I32, "stride_bn": I32, "stride_cm": I32,
                    "stride_cn": I32},
                   {"BM": 128, "BN": 64, "BK": 128}, {"num_warps": 4, "num_stages": 2}),
    "matmul_tma": (kernels.matmul_tma,
                   {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "M": I32, "N": I32, "K": I32},
                   {"BM": 128, "BN": 64, "BK": 64}, {"num_warps": 4, "num_stages": 3}),
    "softmax": (kernels.softmax, {"x_ptr": "*fp32", "y_ptr": "*fp32", "n_cols": I32}, {"BLOCK": 1024},
                {"num_warps": 4}),
    "attention_fwd": (kernels.attention_fwd,
                      {"q_ptr": "*fp16", "k_ptr": "*fp16", "v_ptr": "*fp16", "o_ptr": "*fp16", "seq_len": I32,
                       "sm_scale": "fp32"},
                      {"HEAD": 64, "BM": 64, "BN": 64}, {"num_warps": 4, "num_stages": 2}),
    "matmul_mx": (kernels.matmul_mx,
                  {"a_ptr": "*fp8e4nv", "b_ptr": "*fp8e4nv", "as_ptr": "*u8", "bs_ptr": "*u8", "c_ptr": "*fp32",
                   "M": I32, "N": I32, "K": I32},
                  {"BM": 128, "BN": 128, "BK": 128}, {"num_warps": 4, "num_stages": 3}),
    "matmul_persistent": (kernels.matmul_persistent,
                          {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*fp32", "M": I32, "N": I32, "K": I32},
                          {"BM": 128, "BN": 128, "BK": 64, "NUM_PROGRAMS": 3}, {"num_warps": 4, "num_stages": 3}),
    "matmul_ws": (kernels.matmul_ws,
                  {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": I32, "N": I32, "K": I32},
                  {"BM": 128, "BN": 128, "BK": 64, "NUM_PROGRAMS": 3}, {"num_warps": 4, "num_stages": 3}),
}
ARCHS = {"sm_90a": 90, "sm_100a": 100}


def main():
    manifest = {"triton": triton.__version__, "kernels": {}}
    for name, (fn, sig, consts, opts) in BUILDS.items():
        for arch, cap in ARCHS.items():
            src = ASTSource(fn=fn, signature=sig, constexprs=consts)
            k = triton.compile(src, target=GPUTarget("cuda", cap, 32), options=opts)
            path = os.path.join(HERE, f"{name}.{arch}.ptx")
            with open(path, "w") as f:
                f.write(k.asm["ptx"])
            manifest["kernels"][f"{name}.{arch}"] = {
                "entry": k.metadata.name, "threads": 32 * k.metadata.num_warps, "shared": k.metadata.shared,
                "global_scratch": getattr(k.metadata, "global_scratch_size", 0),
                "global_scratch_align": getattr(k.metadata, "global_scratch_align", 1)}
            print(f"{name}.{arch}: {k.metadata.num_warps} warps, {k.metadata.shared} B shared")
    with open(os.path.join(HERE, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
