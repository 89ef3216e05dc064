#!/usr/bin/env python3
"""Compiles ptxsim's own Triton kernels (tests/triton/kernels.py) to PTX for sm_90a and sm_100a.

Needs Triton (pip install triton==3.9.0 numpy); no GPU. Writes tests/triton/<name>.<arch>.ptx and
tests/triton/manifest.json (per kernel and arch: the entry, threads per CTA, dynamic shared bytes,
global scratch, the CTAs per cluster when more than one, and for each host-side tensor-descriptor
parameter what Triton's launcher needs to encode its CUtensorMap; and the Triton version). CI does
not run this: the generated PTX is committed.

    python scripts/gen_triton_ptx.py              # every kernel
    python scripts/gen_triton_ptx.py NAME...      # only these (the manifest keeps the others)
"""
import json
import os
import sys

os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # Triton 3.9's default, stated (silences its warning)
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "triton")
sys.path.insert(0, HERE)
import kernels  # noqa: E402
import gluon_kernels  # noqa: E402
from triton.experimental.gluon._runtime import GluonASTSource  # noqa: E402

# name -> (function, signature, constexprs, options[, archs]); a signature type
# "tensordesc<fp16[128,64]>" is a host-side tensor descriptor (triton.tools.tensor_descriptor).
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


def td(dtype, block):
    """The signature type of a host-side tensor descriptor with this element type and block."""
    return f"tensordesc<{dtype}[{','.join(map(str, block))}]>"


def kernels_tutorial_builds():
    mm = {"M": I32, "N": I32, "K": I32}
    scaled = lambda a, b, s, afmt, bfmt, vec, a_block, b_block: (  # noqa: E731
        kernels.matmul_block_scaled,
        {"a_desc": td(a, a_block), "as_ptr": s, "b_desc": td(b, b_block), "bs_ptr": s,
         "c_desc": td("fp32", [128, 128]), **mm},
        {"A_FMT": afmt, "B_FMT": bfmt, "VEC": vec, "BM": 128, "BN": 128, "BK": 128},
        {"num_warps": 4, "num_stages": 3})
    return {
        "matmul_tma_persistent": (
            kernels.matmul_tma_persistent,
            {"a_desc": td("fp16", [128, 64]), "b_desc": td("fp16", [128, 64]), "c_desc": td("fp32", [128, 128]), **mm},
            {"BM": 128, "BN": 128, "BK": 64, "NUM_PROGRAMS": 3}, {"num_warps": 4, "num_stages": 3}),
        "matmul_device_tma_persistent": (
            kernels.matmul_device_tma_persistent, {"a_ptr": "*fp8e4nv", "b_ptr": "*fp8e4nv", "c_ptr": "*fp16", **mm},
            {"BM": 128, "BN": 128, "BK": 128, "NUM_PROGRAMS": 3}, {"num_warps": 4, "num_stages": 3}),
        "attention_tma": (
            kernels.attention_tma,
            {"q_desc": td("fp16", [128, 64]), "k_desc": td("fp16", [64, 64]), "v_desc": td("fp16", [64, 64]),
             "o_desc": td("fp16", [128, 64]), "seq_len": I32, "sm_scale": "fp32"},
            {"HEAD": 64, "BM": 128, "BN": 64, "CAUSAL": True}, {"num_warps": 8, "num_stages": 2}),
        "matmul_mxfp8": scaled("fp8e4nv", "fp8e4nv", "*u8", "e4m3", "e4m3", 32, [128, 128], [128, 128]),
        "matmul_nvfp4": scaled("u8", "u8", "*fp8e4nv", "e2m1", "e2m1", 16, [128, 64], [128, 64]) + (["sm_100a"],),
        "matmul_mixed_fp8_fp4": scaled("fp8e4nv", "u8", "*u8", "e4m3", "e2m1", 32, [128, 128], [128, 64])
        + (["sm_100a"],),
        "grouped_gemm": (
            kernels.grouped_gemm,
            {"a_ptrs": "*u64", "b_ptrs": "*u64", "c_ptrs": "*u64", "sizes": "*i32", "lds": "*i32"},
            {"NUM_GROUPS": 3, "BM": 64, "BN": 128, "BK": 64, "NUM_PROGRAMS": 4}, {"num_warps": 4, "num_stages": 3}),
    }


BUILDS.update(kernels_tutorial_builds())
BUILDS.update(gluon_kernels.BUILDS)
ARCHS = {"sm_90a": 90, "sm_100a": 100}

# Triton's device-side TMA element-type numbering differs from CUtensorMapDataType in three places
# (its driver.py TMA_DTYPE_DEVICE_TO_HOST); the manifest records the driver's value.
TMA_DTYPE_DEVICE_TO_HOST = {**{i: i for i in range(16)}, 8: 10, 9: 8, 10: 9}


def main():
    only = set(sys.argv[1:])
    unknown = only - set(BUILDS)
    if unknown:
        sys.exit(f"unknown kernels: {sorted(unknown)}")
    mpath = os.path.join(HERE, "manifest.json")
    manifest = {"triton": triton.__version__, "kernels": {}}
    if only and os.path.exists(mpath):
        with open(mpath) as f:
            manifest["kernels"] = json.load(f)["kernels"]
    for name, build in BUILDS.items():
        if only and name not in only:
            continue
        fn, sig, consts, opts = build[:4]
        archs = build[4] if len(build) > 4 else list(ARCHS)
        for arch in archs:
            cap = ARCHS[arch]
            is_gluon = getattr(fn, "is_gluon", lambda: False)()
            src = (GluonASTSource if is_gluon else ASTSource)(fn=fn, signature=sig, constexprs=consts)
            k = triton.compile(src, target=GPUTarget("cuda", cap, 32), options=opts)
            path = os.path.join(HERE, f"{name}.{arch}.ptx")
            with open(path, "w") as f:
                f.write(k.asm["ptx"])
            md = k.metadata
            entry = {
                "entry": md.name, "threads": 32 * md.num_warps, "shared": md.shared,
                "global_scratch": getattr(md, "global_scratch_size", 0),
                "global_scratch_align": getattr(md, "global_scratch_align", 1)}
            if getattr(md, "num_ctas", 1) > 1:  # Triton launches grid.x * num_ctas CTAs in (num_ctas,1,1) clusters
                entry["cluster"] = [md.num_ctas, 1, 1]
            descs = getattr(md, "tensordesc_meta", None) or []
            if descs:
                entry["tensordesc"] = [{
                    "dtype": TMA_DTYPE_DEVICE_TO_HOST[d["elem_type"]], "elem_size": d["elem_size"],
                    "swizzle": d["swizzle"], "block": list(d["block_size"]), "fp4_padded": bool(d["fp4_padded"])}
                                       for d in descs]
            manifest["kernels"][f"{name}.{arch}"] = entry
            print(f"{name}.{arch}: {md.num_warps} warps, {md.shared} B shared"
                  + (f", cluster {md.num_ctas}" if getattr(md, "num_ctas", 1) > 1 else ""))
    manifest["kernels"] = dict(sorted(manifest["kernels"].items()))
    with open(mpath, "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
