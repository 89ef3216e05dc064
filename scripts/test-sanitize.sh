#!/usr/bin/env bash
# The sanitizer leg of CI: builds a second tree with AddressSanitizer + UndefinedBehaviorSanitizer
# (-DPTXSIM_SANITIZE=ON) and runs the unit and kernel suites in it; any report fails the run.
# Usage: scripts/test-sanitize.sh [main-build-dir] [sanitizer-build-dir]
# The kernel tests reuse the PTX nvcc made in the main build tree (run scripts/test.sh first), so
# this tree needs no nvcc. What runs is the subset the README's "Sanitizers" section names.
set -euo pipefail
cd "$(dirname "$0")/.."
main="$(realpath "${1:-build}")"
build="${2:-build-asan}"
jobs="$(nproc 2>/dev/null || echo 2)"
ptx="$main/tests/kernels/ptx"
[ -d "$ptx" ] || { echo "test-sanitize: no kernel PTX in $ptx (build the main tree first)" >&2; exit 1; }

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPTXSIM_SANITIZE=ON -DPTXSIM_USE_NVCC=OFF \
      -DPTXSIM_BUILD_BENCH=OFF -DPTXSIM_KERNEL_PTX_FROM="$ptx" >/dev/null
cmake --build "$build" -j "$jobs" --target ptxsim_tests ptxsim_kernel_tests

# halt_on_error: the first report ends the process with a failure (UBSan is built non-recovering).
export ASAN_OPTIONS=halt_on_error=1:abort_on_error=0:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

# The whole unit suite (two shards in parallel) and the whole kernel suite; PTXSIM_SANITIZE_FILTER
# narrows the unit suite (a GoogleTest filter) when a machine is too slow for all of it.
unit_filter="${PTXSIM_SANITIZE_FILTER:-*}"
start=$SECONDS
pids=()
for shard in 0 1; do
  GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=$shard "$build/tests/ptxsim_tests" --gtest_filter="$unit_filter" \
    --gtest_brief=1 > "$build/unit-shard$shard.log" 2>&1 &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
tail -n 3 "$build"/unit-shard*.log
[ $status = 0 ] || { grep -h -B2 -A30 -E 'ERROR: AddressSanitizer|runtime error|FAILED' "$build"/unit-shard*.log | head -200; }
echo "test-sanitize: unit suite $((SECONDS - start)) s"
start=$SECONDS
"$build/tests/kernels/ptxsim_kernel_tests" --gtest_brief=1 || status=1
echo "test-sanitize: kernel suite $((SECONDS - start)) s"
exit $status
