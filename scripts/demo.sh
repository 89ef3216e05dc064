#!/usr/bin/env bash
# Builds ptxsim and runs the example case end to end. Usage: scripts/demo.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target ptxsim
"$build/ptxsim" run examples/saxpy/case.json --out "$build/demo-out"
