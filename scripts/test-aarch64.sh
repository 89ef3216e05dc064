#!/usr/bin/env bash
# Cross-builds ptxsim for Linux aarch64 on an x86-64 Debian (bookworm) host and runs its tests
# under user-mode emulation (qemu-aarch64; no binfmt_misc needed). Too slow for CI (README says
# what it ran and how long it took).
#
#   scripts/test-aarch64.sh [build-dir]        default build-aarch64
#
# 1. Host packages: g++-aarch64-linux-gnu, qemu-user (apt-get, when missing).
# 2. BUILD/sysroot: Debian arm64 packages (libzstd, liblz4, libssl, gtest, rapidcheck, CPython 3.11
#    and what they depend on) fetched with apt-get download and unpacked with dpkg -x; the arm64
#    architecture is added to dpkg's list for that (nothing arm64 is installed on the host).
# 3. BUILD/py-aarch64: numpy and pytest wheels for aarch64 from PyPI (pip --platform).
# 4. cmake with cmake/toolchains/aarch64-linux-gnu.cmake: the libraries, the `ptxsim` CLI, the unit
#    and kernel test binaries and the Python extension (nanobind from a host venv, BUILD/venv-host).
#    The kernel tests' PTX is made by the host's nvcc (PTX does not depend on the host), or taken from
#    PTXSIM_KERNEL_PTX_FROM=DIR (another build tree's tests/kernels/ptx).
# 5. Under qemu-aarch64: every unit test, the kernel tests (PTXSIM_AARCH64_KERNELS: a GoogleTest filter,
#    default all), the CLI on examples/saxpy, and tests/python/test_api.py with the arm64 CPython.
#    PTXSIM_NO_PYTHON=1 leaves the Python part out.
set -euo pipefail
cd "$(dirname "$0")/.."
src="$(pwd)"
build="$(mkdir -p "${1:-build-aarch64}" && cd "${1:-build-aarch64}" && pwd)"
jobs="$(nproc 2>/dev/null || echo 2)"
sysroot="$build/sysroot"
log() { printf '\n== %s (%s)\n' "$*" "$(date -u +%H:%M:%S)"; }
sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo

log "host tools"
missing=()
command -v aarch64-linux-gnu-g++ >/dev/null || missing+=(g++-aarch64-linux-gnu)
command -v qemu-aarch64 >/dev/null || command -v qemu-aarch64-static >/dev/null || missing+=(qemu-user)
if [ ${#missing[@]} -gt 0 ]; then
  $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi
qemu="$(command -v qemu-aarch64 || command -v qemu-aarch64-static)"
"$qemu" --version | head -1
aarch64-linux-gnu-g++ --version | head -1

if [ ! -e "$sysroot/.complete" ]; then
  log "arm64 sysroot"
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    $sudo dpkg --add-architecture arm64
    $sudo apt-get update -qq
  fi
  # The packages the build and the tests need, and everything they depend on (arm64 only; the
  # architecture-independent headers are named).
  top=(libc6 libstdc++6 libgcc-s1 libzstd-dev liblz4-dev libssl-dev librapidcheck-dev libgtest-dev
       python3.11 libpython3.11-dev)
  closure=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
              --no-replaces --no-enhances --no-pre-depends "${top[@]/%/:arm64}" |
            grep -E '^[a-z0-9].*:arm64$' | grep -vE '^(dpkg|tar|install-info|openssl|libc-dev-bin|rpcsvc-proto):' |
            sort -u)
  rm -rf "$build/debs" "$sysroot" && mkdir -p "$build/debs" "$sysroot"
  (cd "$build/debs" && apt-get download -qq $closure nlohmann-json3-dev libcli11-dev 2>&1 | grep -v unsandboxed || true)
  for deb in "$build"/debs/*.deb; do dpkg -x "$deb" "$sysroot"; done
  touch "$sysroot/.complete"
fi

# CPython for aarch64 (Debian's 3.11 in the sysroot), run under the emulator. The Python package's
# build asks it for its configuration (EXT_SUFFIX, include directory) as it would natively.
pyarm="$build/python3-aarch64"
printf '#!/bin/sh\nexec %s -L %s %s/usr/bin/python3.11 "$@"\n' "$qemu" "$sysroot" "$sysroot" > "$pyarm"
chmod +x "$pyarm"
py=()
if [ "${PTXSIM_NO_PYTHON:-0}" != 1 ]; then
  log "Python packages"
  if [ ! -d "$build/py-aarch64/numpy" ]; then
    python3 -m pip install -q --disable-pip-version-check --target "$build/py-aarch64" \
      --platform manylinux2014_aarch64 --platform manylinux_2_17_aarch64 --python-version 3.11 \
      --implementation cp --abi cp311 --only-binary=:all: numpy pytest
  fi
  [ -x "$build/venv-host/bin/python" ] || python3 -m venv "$build/venv-host"
  "$build/venv-host/bin/pip" install -q --disable-pip-version-check nanobind
  # The include directory it reports lies in the sysroot; CMake would look for it under the sysroot
  # again (CMAKE_FIND_ROOT_PATH), so it is given.
  py=(-DPTXSIM_PYTHON=ON -DPython_EXECUTABLE="$pyarm" -DPython_INCLUDE_DIR="$sysroot/usr/include/python3.11"
      -Dnanobind_DIR="$("$build/venv-host/bin/python" -m nanobind --cmake_dir)")
fi

log "configure and build"
kernel_ptx=()
[ -n "${PTXSIM_KERNEL_PTX_FROM:-}" ] && kernel_ptx=(-DPTXSIM_KERNEL_PTX_FROM="$PTXSIM_KERNEL_PTX_FROM")
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_TOOLCHAIN_FILE="$src/cmake/toolchains/aarch64-linux-gnu.cmake" -DPTXSIM_AARCH64_SYSROOT="$sysroot" \
  -DPTXSIM_BUILD_BENCH=OFF "${kernel_ptx[@]}" "${py[@]}" >/dev/null
targets=(ptxsim ptxsim_tests ptxsim_kernel_tests)
[ ${#py[@]} -gt 0 ] && targets+=(_core)
cmake --build "$build" -j "$jobs" --target "${targets[@]}"
file "$build/ptxsim" | sed "s|$build/||"

run() { "$qemu" -L "$sysroot" "$@"; }
failed=0
log "unit tests (qemu-aarch64)"
# In shards, one emulated process each.
for ((s = 0; s < jobs; s++)); do
  GTEST_TOTAL_SHARDS=$jobs GTEST_SHARD_INDEX=$s run "$build/tests/ptxsim_tests" --gtest_brief=1 \
    > "$build/unit.$s.log" 2>&1 &
done
for ((s = 0; s < jobs; s++)); do wait -n || failed=1; done
cat "$build"/unit.*.log | grep -E '^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|tests ran' || true

log "kernel tests (qemu-aarch64)"
for ((s = 0; s < jobs; s++)); do
  GTEST_TOTAL_SHARDS=$jobs GTEST_SHARD_INDEX=$s run "$build/tests/kernels/ptxsim_kernel_tests" --gtest_brief=1 \
    --gtest_filter="${PTXSIM_AARCH64_KERNELS:-*}" > "$build/kernels.$s.log" 2>&1 &
done
for ((s = 0; s < jobs; s++)); do wait -n || failed=1; done
cat "$build"/kernels.*.log | grep -E '^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|tests ran' || true

log "ptxsim run examples/saxpy (qemu-aarch64)"
# The same SHA-256 of the output as the x86-64 build (tests/CMakeLists.txt, run.threads).
run "$build/ptxsim" run examples/saxpy/case.json --threads 2 --json > "$build/saxpy.json" || failed=1
grep -q 8f5465ac086ad9ee801b37bbed60e7ff1174e503a4f5b269ba259b57618ea180 "$build/saxpy.json" &&
  echo "saxpy output: the x86-64 SHA-256" || { echo "saxpy output differs"; failed=1; }

if [ ${#py[@]} -gt 0 ]; then
  log "tests/python/test_api.py (arm64 CPython under qemu-aarch64)"
  PYTHONPATH="$build/python:$build/py-aarch64" "$pyarm" -m pytest -q -p no:cacheprovider -rs \
    tests/python/test_api.py || failed=1
fi
log "done: $([ $failed = 0 ] && echo all passed || echo FAILURES)"
exit $failed
