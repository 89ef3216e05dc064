#!/usr/bin/env python3
"""Regenerates tests/unit/data/mmasim_vectors.txt: tensor-core inputs with MMA-Sim's outputs.

Not run by CI (the committed file is what tests/unit/mmasim_vectors_test.cpp checks, without
MMA-Sim installed). Needs MMA-Sim (PyPI `mmasim`, Microsoft's bit-accurate model, arXiv 2511.10909)
and PyTorch, in a virtual environment outside the repository:

    python3 -m venv /work/venv-mmasim
    /work/venv-mmasim/bin/pip install torch mmasim   # the vectors were made with mmasim 2.1.1
    /work/venv-mmasim/bin/python scripts/gen_mmasim_vectors.py [--seed S] [--outputs N] [--repo MMA-SIM-CHECKOUT]

For every instruction variant of issue 17 it runs one MMA-Sim instruction on uniformly random raw
bits (A, B, C and scale factors; the seed is printed and written into the file) and keeps the first
N outputs; then it runs the directed edge examples of docs/numerics.md ("Tensor-core edge rules")
through the same instruction, as row 0 / column 0 of an otherwise zero tile.

File format (text, one output per line, hex without 0x):
    # comments
    seed S
    <variant> <r|d> <c> <d> <a0,a1,...> <b0,...> [<sa0,...> <sb0,...>]
r: random bits, d: a directed edge example (mmasim 2.1.1), D: the same example run by MMA-Sim's
repository code (--repo PATH: a checkout of microsoft/MMA-Sim, the version issue 17 compared). Elements are raw bits in their own format (fp4: one
nibble per element, already unpacked in k order; tf32: the f32 bits MMA-Sim was given, low 13 bits
included). Scale factors: one byte per block of the row / column.
"""
import argparse
import sys

import subprocess

import torch

if "--emit-repo-directed" in sys.argv:
    # Child mode (see main): MMA-Sim's repository code, which is also a package named `mmasim`.
    sys.path.insert(0, sys.argv[sys.argv.index("--emit-repo-directed") + 1])
    from mmasim.simulator import nv_ptx as repo_sim
    sim = None
else:
    from mmasim import nv_ptx as sim  # mmasim 2.1.1: MMA, WGMMA, TCGen05MMA, TCGen05MMABlockScale

# variant name -> (MMA-Sim class, arch, qualifier, block-scaled)
VARIANTS = [] if sim is None else [
    ("sm90.mma.f16.f32", sim.MMA, "Hopper", "m16n8k16.f32.f16.f16.f32"),
    ("sm90.mma.f16.f16", sim.MMA, "Hopper", "m16n8k16.f16.f16.f16.f16"),
    ("sm90.mma.bf16.f32", sim.MMA, "Hopper", "m16n8k16.f32.bf16.bf16.f32"),
    ("sm90.mma.tf32.f32", sim.MMA, "Hopper", "m16n8k8.f32.tf32.tf32.f32"),
    ("sm90.wgmma.f16.f32", sim.WGMMA, "Hopper", "m64n8k16.f32.f16.f16"),
    ("sm90.wgmma.f16.f16", sim.WGMMA, "Hopper", "m64n8k16.f16.f16.f16"),
    ("sm90.wgmma.bf16.f32", sim.WGMMA, "Hopper", "m64n8k16.f32.bf16.bf16"),
    ("sm90.wgmma.tf32.f32", sim.WGMMA, "Hopper", "m64n8k8.f32.tf32.tf32"),
]
for d in ("f32", "f16") if sim else ():
    for a in ("e4m3", "e5m2"):
        for b in ("e4m3", "e5m2"):
            VARIANTS.append((f"sm90.wgmma.{a}.{b}.{d}", sim.WGMMA, "Hopper", f"m64n8k32.{d}.{a}.{b}"))
VARIANTS += [] if sim is None else [
    ("sm100.tcgen05.f16.f32", sim.TCGen05MMA, "Blackwell", "m64n8k16.kind::f16.f32.f16.f16"),
    ("sm100.tcgen05.f16.f16", sim.TCGen05MMA, "Blackwell", "m64n8k16.kind::f16.f16.f16.f16"),
    ("sm100.tcgen05.bf16.f32", sim.TCGen05MMA, "Blackwell", "m64n8k16.kind::f16.f32.bf16.bf16"),
    ("sm100.tcgen05.tf32.f32", sim.TCGen05MMA, "Blackwell", "m64n8k8.kind::tf32.f32.tf32.tf32"),
]
for d in ("f32", "f16") if sim else ():
    for a in ("e4m3", "e5m2"):
        VARIANTS.append((f"sm100.tcgen05.f8f6f4.{a}.{d}", sim.TCGen05MMA, "Blackwell",
                         f"m64n8k32.kind::f8f6f4.{d}.{a}.{a}"))
VARIANTS += [] if sim is None else [
    ("sm100.tcgen05.mxf8f6f4.e4m3.ue8m0.32", sim.TCGen05MMABlockScale, "Blackwell",
     "m128n8k32.kind::mxf8f6f4.block32.f32.e4m3.e4m3.ue8m0"),
    ("sm100.tcgen05.mxf8f6f4.e5m2.ue8m0.32", sim.TCGen05MMABlockScale, "Blackwell",
     "m128n8k32.kind::mxf8f6f4.block32.f32.e5m2.e5m2.ue8m0"),
    ("sm100.tcgen05.mxf4nvf4.ue8m0.32", sim.TCGen05MMABlockScale, "Blackwell",
     "m128n8k64.kind::mxf4nvf4.block32.f32.e2m1.e2m1.ue8m0"),
    ("sm100.tcgen05.mxf4nvf4.ue8m0.16", sim.TCGen05MMABlockScale, "Blackwell",
     "m128n8k64.kind::mxf4nvf4.block16.f32.e2m1.e2m1.ue8m0"),
    ("sm100.tcgen05.mxf4nvf4.ue4m3.16", sim.TCGen05MMABlockScale, "Blackwell",
     "m128n8k64.kind::mxf4nvf4.block16.f32.e2m1.e2m1.ue4m3"),
]

INT_VIEW = {1: torch.uint8, 2: torch.int16, 4: torch.int32}


def rand_bits(gen, shape, dtype):
    """Uniformly random raw bits viewed as dtype."""
    size = torch.empty(0, dtype=dtype).element_size()
    bits = torch.randint(0, 256, (*shape, size), generator=gen, dtype=torch.uint8)
    return bits.view(torch.uint8).contiguous().view(dtype).reshape(shape)


def raw(x):
    """The raw bits of every element of a tensor, as Python ints."""
    size = x.element_size()
    v = x.contiguous().view(INT_VIEW[size]).flatten().tolist()
    return [e & ((1 << (8 * size)) - 1) for e in v]


def fmt(bits, width):
    return ",".join(f"{b:0{width}x}" for b in bits)


def nibbles(packed_row):
    """Unpacks a row of packed fp4 bytes into k order. mmasim 2.1.1 (arithmetic/helper.py
    unpack_uint8_to_fp4) reads element 2i from the high nibble and 2i + 1 from the low one."""
    out = []
    for byte in raw(packed_row):
        out += [byte >> 4, byte & 0xF]
    return out


def width_of(dtype):
    return 2 * torch.empty(0, dtype=dtype).element_size()


def run(name, cls, arch, qual, A, B, C, SA=None, SB=None, rows=None, tag="r", out=None):
    op = cls(arch, qual)
    D = op(A, B, C) if SA is None else op(A, B, C, SA, SB)
    fp4 = SA is not None and op.packing == 2
    wa, wc = width_of(op.a_type), width_of(op.c_type)
    for i, j in rows:
        a = nibbles(A[i, :]) if fp4 else raw(A[i, :])
        b = nibbles(B[:, j]) if fp4 else raw(B[:, j])
        line = [name, tag, fmt(raw(C[i, j : j + 1]), wc), fmt(raw(D[i, j : j + 1]), wc),
                fmt(a, 1 if fp4 else wa), fmt(b, 1 if fp4 else wa)]
        if SA is not None:
            line += [fmt(raw(SA[i, :]), 2), fmt(raw(SB[:, j]), 2)]
        out.append(" ".join(line))


def random_trial(gen, name, cls, arch, qual, n_out, out):
    op = cls(arch, qual)
    m, n, k = op.m, op.n, op.k
    scaled = hasattr(op, "block_size")
    packing = op.packing if scaled else 1
    A = rand_bits(gen, (m, k // packing), op.a_type)
    B = rand_bits(gen, (k // packing, n), op.b_type)
    C = rand_bits(gen, (m, n), op.c_type)
    SA = SB = None
    if scaled:
        SA = rand_bits(gen, (m, k // op.block_size), op.s_type)
        SB = rand_bits(gen, (k // op.block_size, n), op.s_type)
    rows = [(i, j) for i in range(m) for j in range(n)][:n_out]
    run(name, cls, arch, qual, A, B, C, SA, SB, rows, "r", out)


def bits_tensor(values, dtype):
    return torch.tensor(values, dtype=INT_VIEW[torch.empty(0, dtype=dtype).element_size()]).view(dtype)


def directed_one(name, cls, arch, qual, a, b, c, sa=None, sb=None, out=None, tag="d"):
    """One directed example (raw bits) as row 0 of A and column 0 of B; everything else zero."""
    op = cls(arch, qual)
    m, n, k = op.m, op.n, op.k
    A = torch.zeros((m, k), dtype=op.a_type)
    B = torch.zeros((k, n), dtype=op.b_type)
    C = torch.zeros((m, n), dtype=op.c_type)
    A[0, :] = bits_tensor(a, op.a_type)
    B[:, 0] = bits_tensor(b, op.b_type)
    C[0, 0] = bits_tensor([c], op.c_type)[0]
    SA = SB = None
    if sa is not None:
        SA = torch.ones((m, k // op.block_size), dtype=op.s_type)
        SB = torch.ones((k // op.block_size, n), dtype=op.s_type)
        SA[0, :] = bits_tensor(sa, op.s_type)
        SB[:, 0] = bits_tensor(sb, op.s_type)
    run(name, cls, arch, qual, A, B, C, SA, SB, [(0, 0)], tag, out)


def signed16(v):
    return v - 0x10000 if v >= 0x8000 else v


def signed32(v):
    return v - 0x100000000 if v >= 0x80000000 else v


def repo_variants():
    """The directed examples' instructions in MMA-Sim's repository code (mmasim/simulator/nv_ptx.py)."""
    return [
        ("sm90.mma.bf16.f32", repo_sim.mma, "Hopper", "m16n8k16.f32.bf16.bf16.f32"),
        ("sm90.wgmma.bf16.f32", repo_sim.wgmma, "Hopper", "m64n8k16.f32.bf16.bf16"),
        ("sm100.tcgen05.bf16.f32", repo_sim.tcgen05mma, "Blackwell", "m64n8k16.f32.bf16.bf16"),
        ("sm90.mma.tf32.f32", repo_sim.mma, "Hopper", "m16n8k8.f32.tf32.tf32.f32"),
        ("sm90.wgmma.tf32.f32", repo_sim.wgmma, "Hopper", "m64n8k8.f32.tf32.tf32"),
        ("sm100.tcgen05.tf32.f32", repo_sim.tcgen05mma, "Blackwell", "m64n8k8.f32.tf32.tf32"),
        ("sm100.tcgen05.mxf8f6f4.e4m3.ue8m0.32", repo_sim.tcgen05mma_block_scale, "Blackwell",
         "m128n8k32.block32.f32.e4m3.e4m3.ue8m0"),
    ]


def directed_examples(out, variants=None, tag="d"):
    """The edge examples of docs/numerics.md / tests/unit/tensorcore_edge_rules_test.cpp."""
    bf = lambda e: (e + 127) << 7
    f32 = lambda e: (e + 127) << 23
    by_name = {v[0]: v for v in (variants or VARIANTS)}
    directed = lambda *a, **kw: directed_one(*a, tag=tag, **kw)
    for name in ("sm90.mma.bf16.f32", "sm90.wgmma.bf16.f32", "sm100.tcgen05.bf16.f32"):
        _, cls, arch, qual = by_name[name]
        K, s = 16, signed16
        directed(name, cls, arch, qual, [0] + [s(bf(-50))] * (K - 1), [s(bf(100))] + [s(bf(-50))] * (K - 1),
                 signed32(f32(-100)), out=out)  # rule 1
        tiny = s(bf(-76) | 0x10)
        directed(name, cls, arch, qual, [tiny] * K, [tiny] * K, 0, out=out)  # rule 2
        directed(name, cls, arch, qual, [s(0x8000 | bf(-76))] + [0] * (K - 1), [s(bf(-75))] + [0] * (K - 1), 0,
                 out=out)  # rule 3
    for name in ("sm90.mma.tf32.f32", "sm90.wgmma.tf32.f32", "sm100.tcgen05.tf32.f32"):
        _, cls, arch, qual = by_name[name]
        K, s = 8, signed32
        directed(name, cls, arch, qual, [0] + [s(f32(-50))] * (K - 1), [s(f32(100))] + [s(f32(-50))] * (K - 1),
                 s(f32(-100)), out=out)
        tiny = s(f32(-76) | (1 << 20))
        directed(name, cls, arch, qual, [tiny] * K, [tiny] * K, 0, out=out)
        directed(name, cls, arch, qual, [s(0x80000000 | f32(-76))] + [0] * (K - 1), [s(f32(-75))] + [0] * (K - 1), 0,
                 out=out)
    name = "sm100.tcgen05.mxf8f6f4.e4m3.ue8m0.32"
    _, cls, arch, qual = by_name[name]
    directed(name, cls, arch, qual, [0x39] * 32, [0x39] * 32, 0, [127 - 76], [127 - 76], out=out)  # rule 2
    directed(name, cls, arch, qual, [0] * 32, [0x7E] * 32, 0x01000001, [127], [127], out=out)  # rule 1
    directed(name, cls, arch, qual, [0xB8] + [0] * 31, [0x38] + [0] * 31, 0, [127 - 75], [127 - 76],
             out=out)  # rule 3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--outputs", type=int, default=128, help="random outputs kept per variant")
    ap.add_argument("--out", default="tests/unit/data/mmasim_vectors.txt")
    ap.add_argument("--repo", help="a checkout of microsoft/MMA-Sim (its repository code, e.g. c785138): "
                    "also record its outputs of the directed examples, tagged D")
    ap.add_argument("--repo-rev", default="", help="the commit of that checkout, for the file's header "
                    "(default: git rev-parse in it)")
    ap.add_argument("--emit-repo-directed", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.emit_repo_directed:
        lines = []
        directed_examples(lines, repo_variants(), "D")
        print("\n".join(lines))
        return
    print(f"seed {args.seed}", file=sys.stderr)
    gen = torch.Generator().manual_seed(args.seed)
    import importlib.metadata as md
    out = [f"# MMA-Sim {md.version('mmasim')} outputs (scripts/gen_mmasim_vectors.py; torch {torch.__version__})",
           f"seed {args.seed}"]
    for name, cls, arch, qual in VARIANTS:
        print(name, file=sys.stderr)
        random_trial(gen, name, cls, arch, qual, args.outputs, out)
    directed_examples(out)
    if args.repo:
        # A child process: the repository code is also a package named `mmasim`.
        rev = subprocess.run(["git", "-C", args.repo, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
        out.insert(1, f"# D lines: MMA-Sim repository code (microsoft/MMA-Sim "
                      f"{args.repo_rev or rev.stdout.strip() or args.repo}) on the directed examples")
        child = subprocess.run([sys.executable, __file__, "--emit-repo-directed", args.repo], check=True,
                               capture_output=True, text=True)
        out += [line for line in child.stdout.splitlines() if line.strip()]
    with open(args.out, "w") as f:
        f.write("\n".join(out) + "\n")
    n = sum(1 for line in out if not line.startswith(("#", "seed")))
    print(f"{n} outputs -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
