#!/usr/bin/env python3
"""Regenerates the replay self-test traces under tests/traces/ (never hardware traces).

  synthetic/  `ptxsim run CASE --trace` of every sm_90a conformance case (TMA cases carry their
              tensor maps as ptxsim encoded them): replay must agree; plus one with an output
              moved by 1 ulp under a 2-ulp tolerance (agrees).
  mismatch/   the same traces with one thing deliberately wrong each: replay must report every
              one of them as a MISMATCH (CTest replay_catches_mismatches).
Usage: python3 scripts/make_replay_selftests.py build/ptxsim
"""
import base64, copy, hashlib, json, os, struct, subprocess, sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
CORPUS = os.path.join(ROOT, "tests", "conformance", "sm_90a")
OUT = os.path.join(ROOT, "tests", "traces")


def load(p):
    with open(p) as f:
        return json.load(f)


def save(p, doc):
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


def set_bytes(out, data):
    out["bytes"] = len(data)
    out["sha256"] = hashlib.sha256(data).hexdigest()
    out["base64"] = base64.b64encode(data).decode()


def rebase(doc, src_dir, dst_dir):
    # "case" is relative to the trace file: re-point it after moving the trace.
    doc["case"] = os.path.relpath(os.path.normpath(os.path.join(src_dir, doc["case"])), dst_dir)
    return doc


def main():
    ptxsim = sys.argv[1]
    syn = os.path.join(OUT, "synthetic")
    mis = os.path.join(OUT, "mismatch")
    os.makedirs(syn, exist_ok=True)
    for name in sorted(os.listdir(CORPUS)):
        if name.endswith(".case.json"):
            trace = os.path.join(syn, name.replace(".case.json", ".trace.json"))
            subprocess.run([ptxsim, "run", os.path.join(CORPUS, name), "--trace", trace],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    comment = "synthetic self-test: written by ptxsim itself, not captured on hardware"

    # Within tolerance: element 5 of scalar_float moved by one ulp, tolerance 2 ulp.
    t = load(os.path.join(syn, "scalar_float.trace.json"))
    data = bytearray(base64.b64decode(t["outputs"]["out"]["base64"]))
    (bits,) = struct.unpack_from("<I", data, 20)
    struct.pack_into("<I", data, 20, bits + 1)
    set_bytes(t["outputs"]["out"], bytes(data))
    t["outputs"]["out"]["tolerance"] = {"dtype": "f32", "ulp": 2}
    t["comment"] = comment + "; element 5 moved by 1 ulp, within the 2-ulp tolerance"
    save(os.path.join(syn, "tolerance_within.trace.json"), t)

    # ---- mismatches -----------------------------------------------------------------------------
    def mutated(src, new, fn, why):
        t = rebase(load(os.path.join(syn, src)), syn, mis)
        fn(t)
        t["comment"] = comment + "; deliberately wrong: " + why
        save(os.path.join(mis, new), t)

    def flip(t):
        d = bytearray(base64.b64decode(t["outputs"]["out"]["base64"]))
        d[100] ^= 0x10
        set_bytes(t["outputs"]["out"], bytes(d))
    mutated("scalar_int.trace.json", "output_byte_flipped.trace.json", flip, "one output bit flipped")

    def status_hang(t):
        t["status"] = "hang"
        t["outputs"] = {}
    mutated("cta_barrier.trace.json", "completed_recorded_as_hang.trace.json", status_hang,
            "a completing case recorded as a hang")

    def status_completed(t):
        t["status"] = "completed"
        t["outputs"] = {}
        set_bytes(t["outputs"].setdefault("out", {}), b"\0\0\0\0")
    mutated("hang_missing_arrive.trace.json", "hang_recorded_as_completed.trace.json", status_completed,
            "a hang-by-design case recorded as completed")

    def beyond_tol(t):
        d = bytearray(base64.b64decode(t["outputs"]["out"]["base64"]))
        (bits,) = struct.unpack_from("<I", d, 20)
        struct.pack_into("<I", d, 20, bits + 3)
        set_bytes(t["outputs"]["out"], bytes(d))
        t["outputs"]["out"]["tolerance"] = {"dtype": "f32", "ulp": 2}
    mutated("scalar_float.trace.json", "beyond_tolerance.trace.json", beyond_tol, "element 5 moved by 3 ulp, tolerance 2")

    def fault(t):
        t["status"] = "fault"
        t["error"] = "CUDA_ERROR_ILLEGAL_ADDRESS"
        t["outputs"] = {}
    mutated("bulk_copy.trace.json", "completed_recorded_as_fault.trace.json", fault, "a completing case recorded as a fault")

    def hashonly(t):
        o = t["outputs"]["out"]
        del o["base64"]
        o["sha256"] = hashlib.sha256(b"not the output").hexdigest()
    t = rebase(load(os.path.join(syn, "warp_collectives.trace.json")), syn, mis)
    hashonly(t)
    t["comment"] = comment + "; deliberately wrong: a large-output style record (hash only) with a wrong hash"
    save(os.path.join(mis, "sha_only_differs.trace.json"), t)


    def blob_flip(t):
        b = bytearray.fromhex(t["tensormaps"][0]["blob_hex"])
        b[20] ^= 0x01
        t["tensormaps"][0]["blob_hex"] = b.hex()
    mutated("tma_tile_swizzle_128B.trace.json", "tensormap_blob_differs.trace.json", blob_flip,
            "one bit of the recorded tensor map flipped")

    def result_differs(t):
        t["tensormaps"][0]["result"] = "CUDA_ERROR_INVALID_VALUE"
        del t["tensormaps"][0]["blob_hex"]
    mutated("tma_tile_swizzle_64B.trace.json", "tensormap_result_differs.trace.json", result_differs,
            "the driver said INVALID_VALUE where ptxsim's encoder accepts")


if __name__ == "__main__":
    main()
