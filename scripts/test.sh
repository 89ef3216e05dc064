#!/usr/bin/env bash
# Builds ptxsim and runs every test. Usage: scripts/test.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
jobs="$(nproc 2>/dev/null || echo 2)"
# The Python package's tests (ctest -L python) run in a venv under the build tree with what they need
# from PyPI; the extension itself is built by this build from the same libraries (-DPTXSIM_PYTHON).
# PTXSIM_NO_PYTHON=1 skips them.
py=()
if [ "${PTXSIM_NO_PYTHON:-0}" != 1 ]; then
  venv="$(mkdir -p "$build" && cd "$build" && pwd)/venv-py"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check nanobind numpy pytest triton==3.9.0
  py=(-DPTXSIM_PYTHON=ON -DPython_EXECUTABLE="$venv/bin/python")
fi
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${py[@]}" >/dev/null
cmake --build "$build" -j "$jobs"
cd "$build"
# Registers new_frame does not zero (sim/exec/reg_init.h: written before any read on every path)
# get a poison pattern instead of whatever their memory held, so that a register the analysis
# wrongly left out changes some test's result.
export PTXSIM_POISON_REGISTERS=1
ctest --output-on-failure -j "$jobs" --timeout 900
