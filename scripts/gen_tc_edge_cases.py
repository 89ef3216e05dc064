#!/usr/bin/env python3
"""Writes the tensor-core edge-rule conformance cases tests/conformance/{sm_90a,sm_100a}/tc_edge_*.

Each case runs one tensor-core instruction whose every output is the same directed dot product,
chosen so that exactly one of the three edge rules (docs/numerics.md "Tensor-core edge
rules") decides it: ptxsim's setting gives one value, MMA-Sim's another (tests/conformance/README.md
lists both per case). `ptxsim-hw capture tests/conformance traces/<gpu>` on the first GPU records
which one the hardware gives; `ptxsim replay` then holds ptxsim to it. An H200 decided the sm_90a
rows (traces/h200): rules 1 and 2 as ptxsim had them, rule 3 as MMA-Sim (+0), which is now
ptxsim's setting; the sm_100a rows of kEdgeRuleRows (model/tensorcore/tensorcore.h) extrapolate it
and stay unsettled until a Blackwell capture.

The inputs are uniform wherever the rule allows (every A element equal, every B element equal, every
C equal), so the operand layouts cannot change the dot product. Rule 3 needs one nonzero product per
output: there B stays uniform and A holds the special value at k = 0 of every row (mma.sync / wgmma:
by the ISA's register fragments; tcgen05: at the no-swizzle K-major offsets of k = 0); an output
that saw 0, 2 or 3 of them would still underflow (|sum| < 2^-149), so a layout surprise weakens the
case but cannot flip its verdict.

Run: python3 scripts/gen_tc_edge_cases.py  (then commit the generated files).
"""
import json
import os
import struct

from gen_conformance import HEAD, ROOT, TCGEN05_DRAIN, TCGEN05_STAGE, WGMMA_B_DESCRIPTOR, WGMMA_STAGE, mma_sync_kernel, poisoned, tcgen05_issue


def bf16(e, neg=False, frac=0):
    return (0x8000 if neg else 0) | ((e + 127) << 7) | frac


def f32(e, neg=False, frac=0):
    return (0x80000000 if neg else 0) | ((e + 127) << 23) | frac


# The directed vectors per operand type: (rule, A element at k = 0, A elsewhere, B, C, ptxsim, MMA-Sim).
# Values as in tests/unit/tensorcore_edge_rules_test.cpp ("uniform" examples), where the model checks
# both settings.
def vectors(t):
    p = bf16 if t == "bf16" else f32
    k = 16 if t == "bf16" else 8
    tiny = bf16(-76, frac=0x10) if t == "bf16" else f32(-76, frac=1 << 20)  # 1.125 * 2^-76
    return [
        # Rule 1: 0 * 2^100 everywhere, c = 2^-100. ptxsim: the zero products count as e_zero, c exact.
        # MMA-Sim: they count as -126 + 100 = -26 and truncate c away.
        ("zero_product", 0, 0, p(100), f32(-100), f32(-100), 0),
        # Rule 2: K products 81 * 2^-158, c = +0. ptxsim: E = -133, K * 81 / 512 subnormal units, RZ.
        # MMA-Sim: E = -126 truncates each product to 0.
        ("zero_addend", tiny, tiny, tiny, 0, 2 if k == 16 else 1, 0),
        # Rule 3: one product -2^-76 * 2^-75 = -2^-151 (the others 0 * 2^-75), c = +0: RZ to f32 gives
        # a zero: +0 on an H200 (ptxsim, MMA-Sim), -0 under IEEE conversion (UnderflowZeroSign::Keep).
        ("underflow_sign", p(-76, neg=True), 0, p(-75), 0, 0, 0),
    ]


def mma_frag_k(t, lane, i):
    """The k of element i (in register order) of lane's A fragment (PTX ISA mma.m16n8k16 .bf16 /
    mma.m16n8k8 .tf32 'Matrix fragments'); wgmma's register A uses the same per warp."""
    tig = lane % 4
    if t == "bf16":
        return 2 * tig + (i & 1) + (8 if i >= 4 else 0)
    return tig + (4 if i >= 2 else 0)


def pack(t, values):
    return b"".join(struct.pack("<H" if t == "bf16" else "<I", v) for v in values)


def a_registers(t, threads, first, rest):
    """A in register order, 16 bytes per thread: the element at k = 0 is `first`."""
    n = 8 if t == "bf16" else 4
    vals = []
    for tid in range(threads):
        for i in range(n):
            vals.append(first if mma_frag_k(t, tid % 32, i) == 0 else rest)
    return pack(t, vals)


def a_smem(t, rows, first, rest):
    """A as the no-swizzle K-major canonical layout of the tcgen05 kernel (LBO 128, SBO 256, 32 bytes
    of K per row): k = 0 of row m is at byte (m / 8) * 256 + (m % 8) * 16."""
    size = {"bf16": 2, "tf32": 4, "e4m3": 1}[t]
    nbytes = rows * 32
    vals = [rest] * (nbytes // size)
    for m in range(rows):
        vals[((m // 8) * 256 + (m % 8) * 16) // size] = first
    return bytes(vals) if size == 1 else pack(t, vals)


def uniform(t, nbytes, v):
    size = 2 if t == "bf16" else 4
    return pack(t, [v] * (nbytes // size))


def f32s(nbytes, v):
    return struct.pack("<I", v) * (nbytes // 4)


# One warpgroup, wgmma m64n8 with A in registers (16 bytes per thread from `a`), B (8 x K, 256 bytes)
# through a no-swizzle descriptor (LBO 128, SBO 256), C from `c` (4 f32 per thread), scale-d true.
WGMMA = r"""
.visible .entry tc_edge_wgmma(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pout)
{
  .shared .align 128 .b8 bsm[256];
  .reg .b32 %r<20>;
  .reg .b32 %a<4>;
  .reg .f32 %d<4>;
  .reg .b64 %rd<12>;
  .reg .pred %p<3>;
  mov.u32 %r1, %tid.x;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pout];
  ld.param.u64 %rd10, [pc];
""" + WGMMA_STAGE + r"""  add.s64 %rd11, %rd10, %rd6;
  ld.global.v4.f32 {%d0, %d1, %d2, %d3}, [%rd11];
""" + WGMMA_B_DESCRIPTOR + r"""  setp.eq.u32 %p2, %r1, %r1;
  wgmma.fence.sync.aligned;
  wgmma.mma_async.sync.aligned.SHAPE.f32.TYPE.TYPE {%d0, %d1, %d2, %d3}, {%a0, %a1, %a2, %a3}, %rd8, %p2, 1, 1TRANS;
  wgmma.commit_group.sync.aligned;
  wgmma.wait_group.sync.aligned 0;
  add.s64 %rd9, %rd3, %rd6;
  st.global.v4.f32 [%rd9], {%d0, %d1, %d2, %d3};
  ret;
}
"""

# One CTA of 128 threads: tcgen05.mma.cta_group::1 M 128, N 16, 32 bytes of K (kind::f16 bf16 K 16,
# kind::tf32 K 8). A (128 rows, 4096 bytes) and B (16 rows, 512 bytes) are copied from `a` / `b` into
# shared memory (no-swizzle K-major descriptors, LBO 128, SBO 256); C (2048 f32 from `c`) is stored
# into Tensor Memory with tcgen05.st (every warp its 32 lanes x 16 columns), then thread 0 issues the
# MMA with enable-input-d true and commits it to an mbarrier; every warp loads D back.
TCGEN05 = r"""
.visible .entry tc_edge_tcgen05(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pout)
{
  .shared .align 1024 .b8 sa[4096];
  .shared .align 1024 .b8 sb[512];
  .shared .align 8 .b64 bar;
  .shared .align 4 .b32 tslot;
  .reg .b32 %r<80>;
  .reg .b64 %rd<20>;
  .reg .pred %p<8>;
  mov.u32 %r0, %tid.x;
  shr.u32 %r1, %r0, 5;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pout];
  ld.param.u64 %rd12, [pc];
""" + TCGEN05_STAGE + r"""  shl.b32 %r27, %r1, 21;
  add.u32 %r28, %r10, %r27;
  mul.wide.u32 %rd6, %r0, 64;
  add.s64 %rd13, %rd12, %rd6;
  ld.global.v4.u32 {%r60, %r61, %r62, %r63}, [%rd13];
  ld.global.v4.u32 {%r64, %r65, %r66, %r67}, [%rd13+16];
  ld.global.v4.u32 {%r68, %r69, %r70, %r71}, [%rd13+32];
  ld.global.v4.u32 {%r72, %r73, %r74, %r75}, [%rd13+48];
  tcgen05.st.sync.aligned.32x32b.x16.b32 [%r28], {%r60, %r61, %r62, %r63, %r64, %r65, %r66, %r67, %r68, %r69, %r70, %r71, %r72, %r73, %r74, %r75};
  tcgen05.wait::st.sync.aligned;
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
""" + tcgen05_issue("IDESC", "KIND", accumulate=True) + TCGEN05_DRAIN

# kind::mxf8f6f4.block_scale.scale_vec::1X (e4m3 x e4m3, one UE8M0 scale per row of A / column of B):
# the kernel above with 64 TMEM columns, D in columns 0-15, scale_A in columns 32-35 and scale_B in
# column 48 (every lane, byte 0 of each word read: scale-factor ID 0). The scales are uniform per
# operand (the u32 params psfa / psfb repeat one byte), so their TMEM placement cannot matter.
def tcgen05_mx():
    k = TCGEN05.replace("tc_edge_tcgen05(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pout)",
                        "tc_edge_tcgen05_mx(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pout, "
                        ".param .u32 psfa, .param .u32 psfb)")
    k = k.replace("[tslot], 32;", "[tslot], 64;").replace("%r10, 32;", "%r10, 64;")
    k = k.replace("  tcgen05.wait::st.sync.aligned;\n", """  ld.param.u32 %r76, [psfa];
  ld.param.u32 %r77, [psfb];
  add.u32 %r78, %r28, 32;
  tcgen05.st.sync.aligned.32x32b.x4.b32 [%r78], {%r76, %r76, %r76, %r76};
  add.u32 %r79, %r28, 48;
  tcgen05.st.sync.aligned.32x32b.x4.b32 [%r79], {%r77, %r77, %r77, %r77};
  tcgen05.wait::st.sync.aligned;
""", 1)
    k = k.replace("  tcgen05.mma.cta_group::1.kind::KIND [%r10], %rd10, %rd11, %r32, %p2;\n", """  add.u32 %r33, %r10, 32;
  add.u32 %r34, %r10, 48;
  tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X [%r10], %rd10, %rd11, %r32, [%r33], [%r34], %p2;
""")
    assert "KIND" not in k and "psfa" in k and "[%r33]" in k
    return k.replace("IDESC", "0x08840000")  # E4M3 x E4M3, K-major, N >> 3 = 2, UE8M0 (bit 23), M >> 7 = 1


# The mxf8f6f4 vectors (e4m3 bits, UE8M0 scale bytes); values as in tensorcore_edge_rules_test.cpp.
MX_VECTORS = [
    # Rule 1: every a = 0, every b = 448 (e = 8), scales 2^0, c = (1 + 2^-23) * 2^-125: ptxsim keeps c
    # exactly; MMA-Sim c785138 counts 0 * 448 as -118 and drops c's last bit.
    ("zero_product", 0x00, 0x00, 0x7E, 127, 127, 0x01000001, 0x01000001, 0x01000000),
    # Rule 2: 32 products 1.125^2 * 2^-152 (scales 2^-76), c = +0: 5 subnormal units or 0.
    ("zero_addend", 0x39, 0x39, 0x39, 127 - 76, 127 - 76, 0, 0x00000005, 0),
    # Rule 3: -1 at k = 0 (0 elsewhere) times b = 1, scales 2^-75 and 2^-76: -2^-151, +0 (as on an
    # H200 for sm_90a) or -0 (Keep).
    ("underflow_sign", 0xB8, 0x00, 0x38, 127 - 75, 127 - 76, 0, 0, 0),
]


# Instruction descriptors (PTX ISA tcgen05 "Instruction descriptor", kind::f16 / kind::tf32): D f32
# (bits 5:4 = 1), A / B format in bits 9:7 / 12:10 (bf16 1, tf32 2), K-major, N >> 3 = 2, M >> 4 = 8.
IDESC = {"bf16": 0x08040010 | (1 << 7) | (1 << 10), "tf32": 0x08040010 | (2 << 7) | (2 << 10)}


def write_case(target, name, ptx, buffers, threads, outputs, comment, expected, extra_params=()):
    d = os.path.join(ROOT, target)
    files = {}
    doc_buffers = {}
    for buf, data in buffers.items():
        if isinstance(data, bytes):
            fname = f"{name}.{buf}.bin"
            files[fname] = data
            doc_buffers[buf] = {"bytes": len(data), "init": {"file": fname}}
        else:
            doc_buffers[buf] = data
    with open(os.path.join(d, name + ".ptx"), "w") as f:
        f.write("// ptxsim conformance corpus (scripts/gen_tc_edge_cases.py): " + name + "\n")
        f.write(HEAD.format(target=target) + ptx)
    for fname, data in files.items():
        with open(os.path.join(d, fname), "wb") as f:
            f.write(data)
    doc = {"ptx": name + ".ptx", "comment": comment}
    doc.update({"grid": [1], "block": [threads], "buffers": doc_buffers,
                "params": [{"ptr": b} for b in buffers] + list(extra_params), "outputs": outputs})
    with open(os.path.join(d, name + ".case.json"), "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    expected.append((target, name, comment))


def main():
    expected = []
    for t in ("bf16", "tf32"):
        shape = "m16n8k16" if t == "bf16" else "m16n8k8"
        for rule, first, rest, b, c, want_ptxsim, want_mmasim in vectors(t):
            comment = (f"edge rule {rule}: every output is ptxsim 0x{want_ptxsim:08x}, MMA-Sim 0x{want_mmasim:08x} "
                       f"(an H200 gave ptxsim's value on sm_90a, traces/h200; docs/numerics.md)")
            # mma.sync exists on both targets: the same case on each.
            for target in ("sm_90a", "sm_100a"):
                write_case(target, f"tc_edge_mma_{t}_{rule}", mma_sync_kernel("tc_edge_mma", shape, t),
                           {"a": a_registers(t, 32, first, rest), "b": uniform(t, 256, b), "c": f32s(512, c),
                            "d": poisoned(512)}, 32, ["d"], comment, expected)
            wshape = "m64n8k16" if t == "bf16" else "m64n8k8"
            write_case("sm_90a", f"tc_edge_wgmma_{t}_{rule}",
                       WGMMA.replace("SHAPE", wshape).replace("TYPE", t).replace("TRANS", ", 0" if t == "bf16" else ""),
                       {"a": a_registers(t, 128, first, rest), "b": uniform(t, 256, b), "c": f32s(2048, c),
                        "out": poisoned(2048)}, 128, ["out"], comment, expected)
            kind = "f16" if t == "bf16" else "tf32"
            write_case("sm_100a", f"tc_edge_tcgen05_{t}_{rule}",
                       TCGEN05.replace("IDESC", f"0x{IDESC[t]:08x}").replace("KIND", kind),
                       {"a": a_smem(t, 128, first, rest), "b": uniform(t, 512, b), "c": f32s(8192, c),
                        "out": poisoned(8192)}, 128, ["out"], comment, expected)
    for rule, first, rest, b, sa, sb, c, want_ptxsim, want_mmasim in MX_VECTORS:
        comment = (f"edge rule {rule}: every output is ptxsim 0x{want_ptxsim:08x}, MMA-Sim 0x{want_mmasim:08x} "
                   f"(an H200 gave ptxsim's value on sm_90a, traces/h200; docs/numerics.md)")
        write_case("sm_100a", f"tc_edge_tcgen05_mxf8f6f4_{rule}", tcgen05_mx(),
                   {"a": a_smem("e4m3", 128, first, rest), "b": bytes([b]) * 512, "c": f32s(8192, c),
                    "out": poisoned(8192)}, 128, ["out"], comment, expected,
                   [{"u32": sa * 0x01010101}, {"u32": sb * 0x01010101}])
    for target, name, comment in expected:
        print(f"{target}/{name}: {comment}")


if __name__ == "__main__":
    main()
