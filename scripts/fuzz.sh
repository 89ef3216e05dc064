#!/usr/bin/env bash
# The libFuzzer campaign (outside CI; README "Tests, fuzzing, benchmark"): builds the three targets
# with clang (ASan + UBSan), seeds them with the PTX of our own suites (tests/triton, tests/ptx,
# tests/conformance and tests/fuzz/corpus) and runs
# them one after the other, one process at a time, SECONDS each. Crashes go to WORK/artifacts.
# Usage: scripts/fuzz.sh [SECONDS] [WORK]
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-600}"
work="$(realpath -m "${2:-fuzz-work}")"
mkdir -p "$work"/{seeds,artifacts,parser,decoder,launch}

CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DPTXSIM_BUILD_FUZZERS=ON -DPTXSIM_BUILD_TESTS=OFF \
  -DPTXSIM_BUILD_BENCH=OFF >/dev/null
cmake --build build-fuzz --target ptxsim_parser_fuzz ptxsim_decoder_fuzz ptxsim_launch_fuzz

for f in $(find tests/triton tests/ptx tests/kernels tests/conformance tests/fuzz/corpus \
             -name '*.ptx' 2>/dev/null); do
  cp "$f" "$work/seeds/$(echo "$f" | tr / _)"
done
for t in parser decoder launch; do
  # -max_len 4096: the seeds are cut to their first 4 KiB; whole 300 KB modules make every
  # mutation a full re-parse and the campaign 20 times slower.
  build-fuzz/tests/fuzz/ptxsim_${t}_fuzz -max_len=4096 -timeout=20 -rss_limit_mb=3072 -max_total_time="$secs" \
    -print_final_stats=1 -artifact_prefix="$work/artifacts/$t-" "$work/$t" "$work/seeds" 2>&1 |
    grep -E '^(Done|stat::|==[0-9]+==ERROR|SUMMARY)' | sed "s/^/$t: /"
done
