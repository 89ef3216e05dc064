#!/usr/bin/env bash
# Runs a 4-stage warp-specialised TMA pipeline (examples/tma_pipeline, built from
# tests/kernels/tma_pipeline.cu) on ptxsim, checks its output against a reference computed here
# from its input, then runs the same kernel with a wrong expect_tx to show a deadlock report.
# Usage: scripts/demo_tma.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target ptxsim >/dev/null
out="$build/demo-tma"
rm -rf "$out"

echo "== 1. The pipeline: warp 0 loads 12 tiles of A (16 x 32 int32) with TMA into 4 shared-memory"
echo "      stages; warps 1-2 wait on each stage's mbarrier, accumulate C += tile * (t+1), release it."
"$build/ptxsim" run examples/tma_pipeline/case.json --out "$out"

# Reference: C[r][c] = sum over t < 12 of A[r][32 t + c] * (t + 1), as 32-bit integers.
mismatches=$(paste -d' ' <(od -An -v -tu4 -w4 "$out/C.bin") <(od -An -v -td4 -w1536 "$out/A.bin" | awk '
  { for (c = 0; c < 32; ++c) { s = 0; for (t = 0; t < 12; ++t) s += $(32 * t + c + 1) * (t + 1);
      s = s % 4294967296; if (s < 0) s += 4294967296; printf "%.0f\n", s } }') | awk '$1 != $2 { n++ } END { print n + 0 }')
if [ "$mismatches" -eq 0 ]; then
  echo "check: all 1024 elements of C equal the CPU reference"
else
  echo "check: $mismatches of 1024 elements of C differ from the CPU reference" >&2
  exit 1
fi

echo
echo "== 2. The same kernel announcing 4096 bytes on the full barrier while the TMA box is 2048 bytes:"
set +e
"$build/ptxsim" run examples/tma_pipeline/case_wrong_expect_tx.json
status=$?
set -e
echo "(exit code $status: 2 means deadlock, as expected)"
[ "$status" -eq 2 ]
