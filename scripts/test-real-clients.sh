#!/usr/bin/env bash
# Real clients: CUTLASS's own example programs, built unmodified from the nvidia-cutlass wheel's
# C++ sources and run under `ptxsim exec`, each judged by its own verdict ("Disposition: Passed",
# "Execution is successful.", ...). README.md "Real clients" lists the programs and their status.
#
# Usage: scripts/test-real-clients.sh [--all] [--program NAME]... [--build-only] [--list]
#                                      [--timeout S] [build-dir]
#   (no option)     the CI subset (the programs marked ci below)
#   --all           every program
#   --program NAME  only NAME (repeatable; any program, CI subset or not)
#   --build-only    fetch the sources and build the selected programs, run nothing
#   --list          print the programs (name, arch, ci) and exit
#   --timeout S     wall-clock limit for one program's run (default 1800 s)
#   build-dir       ptxsim's CMake build directory (default: build); it must hold a built ptxsim
#                   and its CUDA shim (cmake --build build --target ptxsim ptxsim_cuda_runtime
#                   ptxsim_cuda_driver). Everything this script makes goes under
#                   build-dir/real-clients: the wheel and its sources, the programs (built once,
#                   rebuilt only when missing or when their nvcc command changes), and the logs.
#
# Exit status 0 only when every selected program passed. A program that cannot be built or run
# yet is a failure, with its reason: never a skip.
set -uo pipefail
cd "$(dirname "$0")/.."

CUTLASS_VERSION=4.2.0.0
NVCC="${NVCC:-/usr/local/cuda/bin/nvcc}"

# name | arch | source (under examples/) | ci | extra nvcc flags | program arguments | verdict
#   arch:    90a (run on the default h100) or 100a (run with --device b200)
#   verdict: an extended regex the program's stdout must match; in addition the exit status must
#            be 0, stdout must not say Failed/failed/waived (CUTLASS examples that cannot run on
#            the device they find print "waived" or "requires ..." and exit 0) and ptxsim's stderr
#            must hold no warning (with PTXSIM_RACECHECK set, no race report either).
# Problem sizes are small ones each program accepts; iterations come from the program's own
# options (the cute tutorials time 100 runs and have no option for it). The Ampere/Hopper cute
# tutorials check nothing themselves (they print GFlop/s): exit status and CUDA errors only.
# Sizes below these are bugs of the programs that ptxsim reports:
#   sgemm_sm80: its default N,T path is dropped by g++ -O3 from the host code (no launch at
#               all, on a GPU too), hence T N;
#   wgmma_sm90: the cp.async prologue reads k-tile 1 unchecked, out of bounds at K < 128;
#   wgmma_tma_sm90: cluster 2x1 rounds the grid up to 2 CTAs in M; the second writes C out of
#               bounds at M < 256.
#   61_hopper_gemm_with_topk_and_softmax: its own size (16x8x64); at 32x16x128 or 256x16x128 its
#               check (relative error < 1e-5 over f16 outputs) fails on 2 of 512 elements one f16
#               ulp apart, rounding ties of its ex2.approx / lg2.approx softmax, which ptxsim
#               rounds correctly and a GPU within 2 ulp (docs/numerics.md): unmeasured on hardware.
PROGRAMS=$(cat <<'EOF'
cute_sgemm_sm80|90a|cute/tutorial/sgemm_sm80.cu|ci||128 128 64 T N|^CUTE_GEMM:
cute_wgmma_sm90|90a|cute/tutorial/hopper/wgmma_sm90.cu|ci||128 128 128|^CUTE_GEMM:
cute_wgmma_tma_sm90|90a|cute/tutorial/hopper/wgmma_tma_sm90.cu|ci||256 128 128|^CUTE_GEMM:
cute_01_mma_sm100|100a|cute/tutorial/blackwell/01_mma_sm100.cu|ci||256 512 256|^Execution is successful\.
cute_02_mma_tma_sm100|100a|cute/tutorial/blackwell/02_mma_tma_sm100.cu|||256 512 256|^Execution is successful\.
cute_03_mma_tma_multicast_sm100|100a|cute/tutorial/blackwell/03_mma_tma_multicast_sm100.cu|ci||512 1024 256|^Execution is successful\.
cute_04_mma_tma_2sm_sm100|100a|cute/tutorial/blackwell/04_mma_tma_2sm_sm100.cu|ci||512 1024 256|^Execution is successful\.
cute_05_mma_tma_epi_sm100|100a|cute/tutorial/blackwell/05_mma_tma_epi_sm100.cu|ci||512 1024 256|^Execution is successful\.
48_hopper_warp_specialized_gemm|90a|48_hopper_warp_specialized_gemm/48_hopper_warp_specialized_gemm.cu|ci||--m=256 --n=256 --k=256 --iterations=0|Disposition: Passed
49_collective_builder|90a|49_hopper_gemm_with_collective_builder/49_collective_builder.cu|ci||--m=256 --n=256 --k=256|: Passed$
70_blackwell_fp16_gemm|100a|70_blackwell_gemm/70_blackwell_fp16_gemm.cu|ci||--m=256 --n=256 --k=256 --iterations=0|Disposition: Passed
70_blackwell_fp8_gemm|100a|70_blackwell_gemm/70_blackwell_fp8_gemm.cu|||--m=256 --n=256 --k=256 --iterations=0|Disposition: Passed
71_blackwell_gemm_with_collective_builder|100a|71_blackwell_gemm_with_collective_builder/71_blackwell_gemm_with_collective_builder.cu|||--m=256 --n=256 --k=256|: Passed$
72b_blackwell_nvfp4_nvfp4_gemm|100a|72_blackwell_narrow_precision_gemm/72b_blackwell_nvfp4_nvfp4_gemm.cu|ci||--m=256 --n=256 --k=256 --iterations=0|Disposition: Passed
72a_blackwell_nvfp4_bf16_gemm|100a|72_blackwell_narrow_precision_gemm/72a_blackwell_nvfp4_bf16_gemm.cu|||--m=256 --n=256 --k=256 --iterations=0|Disposition: Passed
72c_blackwell_mixed_mxfp8_bf16_gemm|100a|72_blackwell_narrow_precision_gemm/72c_blackwell_mixed_mxfp8_bf16_gemm.cu|ci||--m=256 --n=256 --k=256 --iterations=0|Disposition: Passed
81_blackwell_gemm_blockwise|100a|81_blackwell_gemm_blockwise/81_blackwell_gemm_blockwise.cu|ci||--m=256 --n=128 --k=128 --iterations=0|Disposition: Passed
54_hopper_fp8_warp_specialized_gemm|90a|54_hopper_fp8_warp_specialized_gemm/54_hopper_fp8_warp_specialized_gemm.cu|ci||--m=256 --n=256 --k=256 --iterations=0|Disposition: Passed
57_hopper_grouped_gemm|90a|57_hopper_grouped_gemm/57_hopper_grouped_gemm.cu|ci||--m=256 --n=128 --k=128 --groups=2 --iterations=0|Disposition: Passed
62_hopper_sparse_gemm|90a|62_hopper_sparse_gemm/62_hopper_sparse_gemm.cu|ci||--m=256 --n=256 --k=256 --iterations=0 --warmup=0|Disposition: Passed
74_blackwell_gemm_streamk|100a|74_blackwell_gemm_streamk/blackwell_gemm_streamk.cu|ci||--m=256 --n=256 --k=1024 --decomposition=StreamK --iterations=0|Disposition: Passed
77_blackwell_fmha|100a|77_blackwell_fmha/77_blackwell_fmha.cu|ci|--use_fast_math|--b=1 --h=1 --q=256 --k=256 --d=64 --verify --warmup_iterations=0 --iterations=1|\[OK\]
83_blackwell_sparse_gemm|100a|83_blackwell_sparse_gemm/83_blackwell_sparse_gemm.cu|ci||--m=256 --n=256 --k=256 --iterations=0|Disposition: Passed
88_hopper_fmha|90a|88_hopper_fmha/88_hopper_fmha.cu||--use_fast_math|--b=1 --h=1 --q=256 --k=256 --d=64 --verify --iterations=0|\[OK\]
56_hopper_ptr_array_batched_gemm|90a|56_hopper_ptr_array_batched_gemm/56_hopper_ptr_array_batched_gemm.cu|||--m=256 --n=256 --k=128 --l=2 --iterations=0|Disposition: Passed
73_blackwell_gemm_preferred_cluster|100a|73_blackwell_gemm_preferred_cluster/blackwell_gemm_preferred_cluster.cu|||--m=256 --n=256 --k=256 --iterations=0|Disposition: Passed
75_blackwell_grouped_gemm|100a|75_blackwell_grouped_gemm/75_blackwell_grouped_gemm.cu|||--m=256 --n=128 --k=128 --groups=2 --iterations=0|Disposition: Passed
50_hopper_gemm_with_epilogue_swizzle|90a|50_hopper_gemm_with_epilogue_swizzle/50_hopper_gemm_with_epilogue_swizzle.cu|||--m=256 --n=256 --k=128 --l=1|: Passed$
55_hopper_mixed_dtype_gemm|90a|55_hopper_mixed_dtype_gemm/55_hopper_mixed_dtype_gemm.cu|||--m=256 --n=128 --k=256 --g=128 --mode=1 --iterations=0 --warmup=0|Disposition: Passed
61_hopper_gemm_with_topk_and_softmax|90a|61_hopper_gemm_with_topk_and_softmax/61_hopper_gemm_with_topk_and_softmax.cu|||--iterations=0|Disposition: Passed
EOF
)

all=0; list=0; build_only=0; timeout_s=1800; build=""; only=()
while [ $# -gt 0 ]; do
  case "$1" in
    --all) all=1 ;;
    --list) list=1 ;;
    --build-only) build_only=1 ;;
    --program) shift; only+=("${1:?--program needs a name}") ;;
    --timeout) shift; timeout_s="${1:?--timeout needs seconds}" ;;
    -h|--help) sed -n '2,/^set /p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "test-real-clients: unknown option $1" >&2; exit 2 ;;
    *) [ -z "$build" ] || { echo "test-real-clients: two build directories: $build and $1" >&2; exit 2; }
       build="$1" ;;
  esac
  shift
done
build="${build:-build}"

if [ "$list" = 1 ]; then
  while IFS='|' read -r name arch src ci _; do printf '%-45s %-5s %s\n' "$name" "$arch" "${ci:--}"; done <<<"$PROGRAMS"
  exit 0
fi

# The programs to run.
selected=()
while IFS='|' read -r name arch src ci _; do
  if [ ${#only[@]} -gt 0 ]; then
    for o in "${only[@]}"; do [ "$o" = "$name" ] && selected+=("$name"); done
  elif [ "$all" = 1 ] || [ "$ci" = ci ]; then
    selected+=("$name")
  fi
done <<<"$PROGRAMS"
for o in "${only[@]}"; do
  grep -q "^$o|" <<<"$PROGRAMS" || { echo "test-real-clients: no program named '$o' (see --list)" >&2; exit 2; }
done

build="$(cd "$build" 2>/dev/null && pwd)" || { echo "test-real-clients: no build directory" >&2; exit 2; }
ptxsim="$build/ptxsim"
[ -x "$ptxsim" ] && [ -e "$build/cuda_shim/libcudart.so.13" ] || {
  echo "test-real-clients: $build has no ptxsim and CUDA shim; build them first:" >&2
  echo "  cmake --build $build --target ptxsim ptxsim_cuda_runtime ptxsim_cuda_driver" >&2
  exit 2; }
work="$build/real-clients"
mkdir -p "$work/bin" "$work/logs"

# ---- the CUTLASS sources: the nvidia-cutlass wheel from PyPI, unpacked under the build tree -----
fetch_cutlass() {
  local src="$work/cutlass-$CUTLASS_VERSION"
  [ -e "$src/.complete" ] && return 0
  local wheel
  wheel="$(ls "$work"/nvidia_cutlass-"$CUTLASS_VERSION"-*.whl 2>/dev/null | head -n1)"
  if [ -z "$wheel" ]; then
    local pip=(python3 -m pip)
    if ! python3 -m pip --version >/dev/null 2>&1; then
      # No pip for the system python (Debian without python3-pip): a venv brings its own.
      python3 -m venv "$work/venv" >/dev/null || return 1
      pip=("$work/venv/bin/python" -m pip)
    fi
    echo "test-real-clients: pip download nvidia-cutlass==$CUTLASS_VERSION"
    "${pip[@]}" download --quiet --no-deps --only-binary=:all: "nvidia-cutlass==$CUTLASS_VERSION" \
      -d "$work" || return 1
    wheel="$(ls "$work"/nvidia_cutlass-"$CUTLASS_VERSION"-*.whl 2>/dev/null | head -n1)"
    [ -n "$wheel" ] || return 1
  fi
  rm -rf "$src.tmp" && mkdir -p "$src.tmp"
  # Only the C++ sources (include/, tools/util/include/, examples/).
  python3 - "$wheel" "$src.tmp" <<'PY' || return 1
import sys, zipfile
wheel, dest = sys.argv[1], sys.argv[2]
prefix = "cutlass_library/source/"
with zipfile.ZipFile(wheel) as z:
    names = [n for n in z.namelist() if n.startswith(prefix) and not n.endswith("/")]
    if not names:
        sys.exit("no %s in %s" % (prefix, wheel))
    for n in names:
        target = dest + "/" + n[len(prefix):]
        import os
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with z.open(n) as f, open(target, "wb") as out:
            out.write(f.read())
PY
  touch "$src.tmp/.complete"
  rm -rf "$src" && mv "$src.tmp" "$src"
}
# Concurrent invocations (ctest -j) fetch once.
exec 9>"$work/fetch.lock"
flock 9
fetch_cutlass; fetch_rc=$?
flock -u 9
cutlass="$work/cutlass-$CUTLASS_VERSION"

# ---- build and run ---------------------------------------------------------------------------
# The flags CUTLASS's CMake gives its examples (Release), less the SASS: PTX only, for ptxsim.
common_flags=(-std=c++17 -cudart shared -O3 -DNDEBUG --expt-relaxed-constexpr
  -ftemplate-backtrace-limit=0 -DCUTLASS_ENABLE_TENSOR_CORE_MMA=1 -DCUTLASS_ENABLE_GDC_FOR_SM100=1
  -DCUTE_USE_PACKED_TUPLE=1 -DCUTLASS_TEST_LEVEL=0 -DCUTLASS_TEST_ENABLE_CACHED_RESULTS=1
  -DCUTLASS_CONV_UNIT_TEST_RIGOROUS_SIZE_ENABLED=1 -DCUTLASS_DEBUG_TRACE_LEVEL=0
  -Xcompiler=-fno-strict-aliasing)

# Takes one of PTXSIM_NVCC_JOBS slot locks as fd 8 (waits while all are held).
nvcc_slot_acquire() {
  local slots="${PTXSIM_NVCC_JOBS:-2}" i
  while :; do
    for ((i = 0; i < slots; i++)); do
      exec 8>"$work/nvcc.$i.lock"
      flock -n 8 && return 0
    done
    sleep 1
  done
}

results=()
failures=0
summary_line() { # name status wall instructions compile reason
  printf '%-45s %-6s run %7s s  %16s thread-instr  compile %6s s  %s\n' "$1" "$2" "$3" "$4" "$5" "$6"
}

# The first lines of what went wrong: ptxsim's diagnostics (and the lines after the first),
# else the program's own last words.
failure_excerpt() { # stdout-file stderr-file
  # Kernel names are long C++ templates: lines are cut at 400 characters.
  grep -v -E '^ptxsim: .* grid [0-9]+x[0-9]+x[0-9]+ block .*: completed,' "$2" | head -n 12 | cut -c1-400
  echo "...program stdout (last lines):"
  tail -n 6 "$1" | cut -c1-400
}

run_one() {
  local name="$1" arch src ci extra args verdict
  IFS='|' read -r _ arch src ci extra args verdict < <(grep "^$name|" <<<"$PROGRAMS")
  local bin="$work/bin/$name" log="$work/logs/$name"
  local compile_s="cached" status="" wall="-" instr="-" reason=""
  local exec_args=()
  [ "$arch" = 100a ] && exec_args=(--device b200)

  if [ "$fetch_rc" != 0 ]; then
    summary_line "$name" FAIL - - - "the nvidia-cutlass==$CUTLASS_VERSION wheel could not be fetched"
    failures=$((failures + 1)); return
  fi
  local exdir
  exdir="$(dirname "$cutlass/examples/$src")"
  local cmd=("$NVCC" "${common_flags[@]}" -gencode "arch=compute_$arch,code=compute_$arch"
             -I"$cutlass/include" -I"$cutlass/tools/util/include" -I"$cutlass/examples/common"
             -I"$exdir" $extra -o "$bin.tmp" "$cutlass/examples/$src"
             -L/usr/local/cuda/lib64/stubs -lcuda)
  local cmdline="${cmd[*]}"
  # Rebuild only when the binary is missing or its command changed. At most PTXSIM_NVCC_JOBS
  # (default 2) nvcc at a time across concurrent invocations: a CUTLASS example takes up to 2-4 GiB
  # and minutes of one core to compile. The lock of the program's own binary keeps two invocations
  # from building the same program.
  if [ ! -x "$bin" ] || [ "$(cat "$bin.cmd" 2>/dev/null)" != "$cmdline" ]; then
    exec 7>"$bin.lock"
    flock 7
    nvcc_slot_acquire
    if [ ! -x "$bin" ] || [ "$(cat "$bin.cmd" 2>/dev/null)" != "$cmdline" ]; then
      echo "test-real-clients: nvcc $src"
      local t0=$SECONDS
      if "${cmd[@]}" >"$log.compile.log" 2>&1; then
        mv "$bin.tmp" "$bin"; printf '%s' "$cmdline" >"$bin.cmd"
        compile_s=$((SECONDS - t0)); echo "$compile_s" >"$bin.compile_s"
      else
        compile_s=$((SECONDS - t0))
        flock -u 8; flock -u 7
        summary_line "$name" FAIL - - "$compile_s" "nvcc failed ($log.compile.log):"
        grep -m5 -E 'error' "$log.compile.log" | sed 's/^/    /'
        failures=$((failures + 1)); return
      fi
    fi
    flock -u 8; flock -u 7
  fi
  [ "$compile_s" = cached ] && [ -e "$bin.compile_s" ] && compile_s="$(cat "$bin.compile_s") (cached)"
  if [ "$build_only" = 1 ]; then
    summary_line "$name" BUILT - - "$compile_s" "$bin"
    return
  fi

  echo "test-real-clients: ptxsim exec ${exec_args[*]} --stats -- $name $args"
  local t0 t1 rc
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  timeout --kill-after=10 "$timeout_s" "$ptxsim" exec "${exec_args[@]}" --max-seconds "$timeout_s" --stats \
    -- "$bin" $args >"$log.stdout" 2>"$log.stderr"
  rc=$?
  t1=$(date +%s.%N)
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  # --stats: one line per launch, "ptxsim: KERNEL grid ... block ...: STATUS, N thread-instructions in S s".
  instr=$(grep -o -E '[0-9]+ thread-instructions' "$log.stderr" | awk '{ s += $1 } END { printf "%.0f", s }')
  local launches
  launches=$(grep -c -E '^ptxsim: .* grid [0-9]+x[0-9]+x[0-9]+ block ' "$log.stderr")

  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    reason="timed out after $timeout_s s (--timeout)"
  elif [ "$rc" != 0 ]; then
    reason="exit status $rc"
  elif [ "$launches" = 0 ]; then
    reason="no kernel ran under ptxsim"
  elif ! grep -q -E "$verdict" "$log.stdout"; then
    reason="no verdict: stdout does not match '$verdict'"
  elif grep -q -E 'Failed|failed|\[FAIL\]|waived|[Rr]equires ' "$log.stdout"; then
    reason="the program reports: $(grep -m1 -E 'Failed|failed|\[FAIL\]|waived|[Rr]equires ' "$log.stdout")"
  elif grep -q -E 'warning: ' "$log.stderr"; then
    # A correct program draws no report: a warning (a hazard, a race, a stale read) is a failure.
    reason="ptxsim warned $(grep -c -E 'warning: ' "$log.stderr") time(s), first: $(grep -m1 -o -E 'warning: .{0,200}' "$log.stderr")"
  fi
  if [ -z "$reason" ]; then
    summary_line "$name" PASS "$wall" "$instr" "$compile_s" "($launches launches)"
  else
    summary_line "$name" FAIL "$wall" "$instr" "$compile_s" "$reason (logs: $log.stdout, $log.stderr)"
    failure_excerpt "$log.stdout" "$log.stderr" | sed 's/^/    /'
    failures=$((failures + 1))
  fi
}

echo "test-real-clients: CUTLASS $CUTLASS_VERSION examples under $ptxsim exec (${#selected[@]} programs)"
for name in "${selected[@]}"; do
  run_one "$name"
done
total=${#selected[@]}
if [ "$build_only" = 1 ]; then
  echo "real clients: $((total - failures)) built, $failures failed to build"
else
  echo "real clients: $((total - failures)) passed, $failures failed"
fi
[ "$failures" = 0 ]
