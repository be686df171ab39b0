#!/usr/bin/env bash
# Checks libiashim.so on a machine with a real NVIDIA GPU and prints a report to paste:
# GPU details; the shim's overhead on a CUDA workload (and on PyTorch if it is installed);
# kernel counts in the shim's trace against what the workload launched; how the CUDA
# runtime found cuLaunchKernel; the memory quota; two workloads sharing the GPU (alone,
# paired, and at shares 0.3/0.7; two PyTorch loops too) beside what simgpu's model predicts
# for the same kernels. The checks take under 8 minutes.
#
#   scripts/gpu-check.sh                  # source checkout: builds libiashim first
#   scripts/gpu-check.sh --bundle DIR     # bundle from scripts/gpu-bundle.sh (found by
#                                         # itself when this script sits inside one)
# Options:
#   --build-dir DIR       source mode: build directory (default build)
#   --no-build            source mode: use what DIR already holds
#   --iterations N        workload iterations per run (default 3000)
#   --reps N              runs with and without the shim, medians compared (default 5)
#   --mem-limit-gib G     IASHIM_MEM_LIMIT for the quota check (default 1)
#   --chunk-mib M         allocation size in the quota check (default 64)
#   --torch-seconds S     length of each PyTorch run (default 3)
#   --share-seconds S     length of each run of the sharing check (default 5)
#   --no-torch            skip PyTorch even if it is installed
#   --max-overhead PCT    warn when the shim costs more than this (default 5)
#   --workdir DIR         logs, traces and the compiled workload (default: new /tmp dir)
# Environment: CUDA_HOME (where nvcc is), PYTHON (interpreter with torch, default python3),
# CUDA_VISIBLE_DEVICES (respected: the first visible GPU is used).
# Exit status: 0 all checks passed (warnings allowed), 1 a check failed, 2 bad usage,
# 3 cannot check here (no GPU, no nvcc, cannot build).
set -euo pipefail
script_dir=$(cd "$(dirname "$0")" && pwd)
script_root=$(dirname "$script_dir")
me=gpu-check.sh

usage_error() { echo "$me: $* (see --help)" >&2; exit 2; }
cannot() { echo "$me: cannot check here: $*" >&2; exit 3; }
is_uint() { [[ "$1" =~ ^[0-9]+$ ]] && [[ ${#1} -le 9 ]]; }
int_opt() {  # int_opt NAME VALUE LO HI: validated integer option
  if ! is_uint "$2" || (( $2 < $3 || $2 > $4 )); then
    usage_error "$1 must be an integer in $3..$4 (got '$2')"
  fi
}

bundle=""
build_dir=build
no_build=0
iterations=3000
reps=5
mem_gib=1
chunk_mib=64
torch_seconds=3
share_seconds=5
no_torch=0
max_overhead=5
workdir=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
    --no-build) no_build=1; shift; continue ;;
    --no-torch) no_torch=1; shift; continue ;;
    --bundle|--build-dir|--iterations|--reps|--mem-limit-gib|--chunk-mib|--torch-seconds|\
    --share-seconds|--max-overhead|--workdir)
      [[ $# -ge 2 && -n "$2" ]] || usage_error "$1 needs a value" ;;
    *) usage_error "unknown argument '$1'" ;;
  esac
  case "$1" in
    --bundle) bundle=$2 ;;
    --build-dir) build_dir=$2 ;;
    --iterations) int_opt "$1" "$2" 100 1000000; iterations=$2 ;;
    --reps) int_opt "$1" "$2" 1 50; reps=$2 ;;
    --mem-limit-gib) int_opt "$1" "$2" 1 1024; mem_gib=$2 ;;
    --chunk-mib) int_opt "$1" "$2" 1 4096; chunk_mib=$2 ;;
    --torch-seconds) int_opt "$1" "$2" 1 60; torch_seconds=$2 ;;
    --share-seconds) int_opt "$1" "$2" 2 60; share_seconds=$2 ;;
    --max-overhead)
      [[ "$2" =~ ^[0-9]{1,4}(\.[0-9]+)?$ ]] ||
        usage_error "--max-overhead must be a percentage like 5 or 2.5 (got '$2')"
      max_overhead=$2 ;;
    --workdir) workdir=$2 ;;
  esac
  shift 2
done
quota_mib=$((mem_gib * 1024))
(( chunk_mib < quota_mib )) ||
  usage_error "--chunk-mib ($chunk_mib) must be smaller than the quota ($quota_mib MiB)"

# Environment inputs.
python=${PYTHON:-python3}
if [[ -n "${PYTHON:-}" ]] && ! command -v "$PYTHON" >/dev/null; then
  usage_error "PYTHON='$PYTHON' is not an executable or a command on PATH"
fi
if [[ -n "${CUDA_HOME:-}" && ! -x "$CUDA_HOME/bin/nvcc" ]]; then
  usage_error "CUDA_HOME='$CUDA_HOME' has no bin/nvcc; set it to the CUDA toolkit root or unset it"
fi
for tool in awk sed sort grep timeout mktemp; do
  command -v "$tool" >/dev/null || cannot "'$tool' is missing (coreutils/sed/gawk)"
done

# Mode: an explicit bundle, this script inside a bundle, the current directory, or source.
if [[ -z "$bundle" ]]; then
  if [[ -f "$script_root/BUNDLE-INFO" ]]; then bundle=$script_root
  elif [[ -f "$PWD/BUNDLE-INFO" ]]; then bundle=$PWD
  fi
fi
if [[ -n "$bundle" ]]; then
  [[ -d "$bundle" ]] || usage_error "--bundle '$bundle' is not a directory"
  bundle=$(cd "$bundle" && pwd)
  [[ -f "$bundle/BUNDLE-INFO" ]] ||
    usage_error "--bundle '$bundle' has no BUNDLE-INFO: not made by scripts/gpu-bundle.sh"
  for f in lib/libiashim.so lib/iashim-trace bench/gpu/workload.cu; do
    [[ -f "$bundle/$f" ]] || usage_error "bundle '$bundle' lacks $f: unpack it again"
  done
  mode=bundle
  src_root=$bundle
else
  mode=source
  src_root=$script_root
  [[ -f "$src_root/CMakeLists.txt" && -f "$src_root/bench/gpu/workload.cu" ]] ||
    usage_error "$src_root is neither a source checkout nor a bundle; use --bundle DIR"
fi

if [[ -n "$workdir" ]]; then
  mkdir -p "$workdir" 2>/dev/null || usage_error "--workdir '$workdir' cannot be created"
  [[ -w "$workdir" ]] || usage_error "--workdir '$workdir' is not writable"
  wd=$(cd "$workdir" && pwd)
else
  wd=$(mktemp -d "${TMPDIR:-/tmp}/iashim-gpu-check.XXXXXX")
fi
exec > >(tee -a "$wd/gpu-check.log") 2>&1
tee_pid=$!
# Let tee write out everything before the script's exit status reaches the caller.
trap 'exec >&- 2>&-; wait "$tee_pid" 2>/dev/null || true' EXIT

# ------------------------------------------------------------------------------------------
# Helpers

t_start=$SECONDS
section() { echo; echo "== $* ($((SECONDS - t_start)) s) =="; }
note() { echo "  $*"; }
indent() { sed "s/^/${1:-  }/"; }

res_name=(); res_status=(); res_detail=()
record() {  # record STATUS NAME DETAIL
  res_status+=("$1"); res_name+=("$2"); res_detail+=("$3")
  printf '  -> %-4s %s: %s\n' "$1" "$2" "$3"
}

# Helpers that read files print nothing rather than fail when there is nothing to read
# (a crashed run): under pipefail a failed grep would otherwise end the whole check.
# jget KEY FILE: a scalar from the one-line JSON the workload and torch_loop.py print.
jget() {
  { grep '^{' "$2" 2>/dev/null || true; } | tail -n 1 |
    sed -n "s/.*\"$1\": *\"\{0,1\}\([^\",}]*\)\"\{0,1\}[,}].*/\1/p" | sed -n 1p
}
# sget KEY FILE: a field of the shim's exit summary line (the one with most launches).
sget() {
  { grep '^iashim: summary ' "$2" 2>/dev/null || true; } |
    awk '{ n = 0; for (i = 1; i <= NF; i++) if ($i ~ /^launches=/) n = substr($i, 10) + 0
           if (n >= best) { best = n; line = $0 } } END { print line }' |
    tr ' ' '\n' | sed -n "s/^$1=//p" | sed -n 1p
}
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END {
  if (NR == 0) print "nan"; else if (NR % 2) print a[(NR + 1) / 2];
  else printf "%.9g\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
calc() { awk "BEGIN { printf \"$1\", $2 }"; }
ver_ge() { [[ "$(printf '%s\n' "$1" "$2" | sort -V | head -n 1)" == "$2" ]]; }
ver_gt() { [[ "$1" != "$2" ]] && ver_ge "$1" "$2"; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# run TAG TIMEOUT SHIM [VAR=VALUE...] -- COMMAND...: stdout/stderr into $wd/TAG.{out,err}.
# SHIM is "on" or "off"; the variables apply to COMMAND only (not to timeout itself, so
# the shim's exit summary comes from COMMAND alone). Sets run_rc and run_ms.
run_budget=450
run() {
  local tag=$1 limit=$2 shim=$3; shift 3
  # A hanging shim must not hold the check for long: past the budget, runs are refused.
  if (( SECONDS - ${check_start:-0} > run_budget )); then
    run_rc=125; run_ms=0
    echo "not run: the check's time budget (${run_budget}s) is spent" > "$wd/$tag.err"
    : > "$wd/$tag.out"
    return
  fi
  local envs=()
  while [[ $# -gt 0 && "$1" != "--" ]]; do envs+=("$1"); shift; done
  shift
  [[ "$shim" == on ]] && envs+=("LD_PRELOAD=$shim_lib")
  local t0; t0=$(now_ms)
  run_rc=0
  timeout -k 5 "$limit" env "${envs[@]}" "$@" < /dev/null > "$wd/$tag.out" 2> "$wd/$tag.err" || run_rc=$?
  run_ms=$(( $(now_ms) - t0 ))
  if [[ $run_rc -eq 124 || $run_rc -eq 137 ]]; then
    echo "  $tag: timed out after ${limit}s" >> "$wd/$tag.err"
  fi
}
# why TAG: one line saying why a run failed, for the report.
why() {
  local msg
  msg=$({ grep -v '^iashim: ' "$wd/$1.err" 2>/dev/null || true; } | tail -n 2 | tr '\n' ' ' | cut -c1-200)
  echo "exit $run_rc${msg:+: $msg}"
}

# ------------------------------------------------------------------------------------------
section "iashim gpu-check: $mode mode, $(date -u '+%Y-%m-%d %H:%M UTC')"
note "work directory: $wd (logs, traces, compiled workload)"
if [[ $mode == bundle ]]; then
  note "bundle: $bundle (iashim $(sed -n 's/^git_rev=//p' "$bundle/BUNDLE-INFO"), made $(sed -n 's/^created=//p' "$bundle/BUNDLE-INFO"))"
else
  note "source: $src_root (iashim $(git -C "$src_root" describe --always --dirty 2>/dev/null || echo '?'))"
fi
note "host: $(sed -n 's/^PRETTY_NAME="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' /etc/os-release 2>/dev/null), kernel $(uname -r), $(uname -m)"
note "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1) x $(nproc)"
glibc_here=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}' || true)
note "glibc: ${glibc_here:-not glibc}"

# A stray setting from the caller's shell would change what is measured.
stray=$(env | sed -n 's/^\(IASHIM_[A-Z0-9_]*\)=.*/\1/p' | tr '\n' ' ')
for v in $stray; do unset "$v"; done
[[ -n "$stray" ]] && note "ignoring caller's $stray(the check sets its own)"
if [[ -n "${LD_PRELOAD:-}" ]]; then note "ignoring caller's LD_PRELOAD=$LD_PRELOAD"; unset LD_PRELOAD; fi
note "CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-(unset)}"

section "GPU (nvidia-smi)"
command -v nvidia-smi >/dev/null || cannot "nvidia-smi not found: no NVIDIA driver on this machine"
smi_err=$(nvidia-smi -L 2>&1) || cannot "nvidia-smi fails: $smi_err"
printf '%s\n' "$smi_err" | indent
nvidia-smi | grep -o 'Driver Version: [0-9.]*.*CUDA Version: [0-9.]*' | sed 's/  */ /g; s/^/  /' || true
# Older drivers reject unknown query fields: fall back to the basic ones.
{ nvidia-smi --query-gpu=index,name,memory.total,memory.used,utilization.gpu,temperature.gpu,power.draw,clocks.sm,clocks.max.sm,compute_mode \
    --format=csv 2>/dev/null ||
  nvidia-smi --query-gpu=index,name,memory.total,memory.used --format=csv 2>/dev/null || true; } | indent
mig=$(nvidia-smi --query-gpu=mig.mode.current --format=csv,noheader 2>/dev/null | sort -u | tr '\n' ' ' || true)
[[ -n "$mig" ]] && note "MIG mode: $mig"
others=$(nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader 2>/dev/null || true)
if [[ -n "$others" ]]; then
  note "other processes on the GPU (timings will be noisy):"
  printf '%s\n' "$others" | indent "    "
  record WARN "GPU idle" "other processes use the GPU: $(echo "$others" | wc -l)"
else
  note "other processes on the GPU: none"
fi

# ------------------------------------------------------------------------------------------
section "CUDA toolkit"
nvcc=""
if [[ -n "${CUDA_HOME:-}" ]]; then nvcc="$CUDA_HOME/bin/nvcc"
elif command -v nvcc >/dev/null; then nvcc=$(command -v nvcc)
elif [[ -x /usr/local/cuda/bin/nvcc ]]; then nvcc=/usr/local/cuda/bin/nvcc
fi
[[ -n "$nvcc" ]] || cannot "nvcc not found (not on PATH, not /usr/local/cuda/bin): install the CUDA toolkit or set CUDA_HOME"
cuda_root=$(cd "$(dirname "$nvcc")/.." && pwd)
note "nvcc: $nvcc ($("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'))"

# ------------------------------------------------------------------------------------------
if [[ $mode == source ]]; then
  section "Build libiashim (source mode)"
  cannot_build() {
    echo "$me: cannot build libiashim here: $*" >&2
    echo "$me: build the bundle where scripts/setup.sh works (scripts/setup.sh && scripts/gpu-bundle.sh)," >&2
    echo "$me: copy dist/iashim-gpu-bundle.tar.gz here, then: tar xzf iashim-gpu-bundle.tar.gz && iashim-gpu-bundle/scripts/gpu-check.sh" >&2
    exit 3
  }
  cd "$src_root"
  shim_lib="$src_root/$build_dir/libiashim/libiashim.so"
  [[ "$build_dir" == /* ]] && shim_lib="$build_dir/libiashim/libiashim.so"
  trace_bin="$(dirname "$shim_lib")/iashim-trace"
  predict_bin="$(dirname "$(dirname "$shim_lib")")/bench/predict/iashim-pair-predict"
  if [[ $no_build -eq 0 ]]; then
    # setup.sh installs Debian packages: only try it where that cannot hang on a password.
    try_setup() {
      if [[ $(id -u) -ne 0 ]] && ! sudo -n true 2>/dev/null; then
        note "not root and no passwordless sudo: scripts/setup.sh cannot install packages"
        return 1
      fi
      note "installing build packages (scripts/setup.sh --no-build; log: $wd/setup.log)"
      CUDA_HOME=$cuda_root scripts/setup.sh --no-build > "$wd/setup.log" 2>&1 ||
        { tail -n 5 "$wd/setup.log" | sed 's/^/    /'; return 1; }
    }
    configure() {
      cmake -S . -B "$build_dir" -G Ninja -DCUDA_INCLUDE_DIR="$cuda_root/include" \
        > "$wd/configure.log" 2>&1 || { tail -n 5 "$wd/configure.log" | sed 's/^/    /'; return 1; }
    }
    tools_ok() { command -v cmake >/dev/null && command -v ninja >/dev/null && command -v c++ >/dev/null; }
    if ! tools_ok; then
      note "cmake, ninja or c++ missing"
      if ! { try_setup && tools_ok; }; then cannot_build "cmake, ninja and a C++ compiler are needed"; fi
    fi
    if [[ ! -f "$build_dir/CMakeCache.txt" ]]; then
      configure || { try_setup && configure; } ||
        cannot_build "cmake configure failed (log: $wd/configure.log)"
    fi
    # Only the two artefacts: the test suite is not needed here. With Ninja, output paths
    # are targets, so this does not depend on CMake target names.
    targets=()
    [[ -f "$build_dir/build.ninja" ]] &&
      targets=(--target libiashim/libiashim.so libiashim/iashim-trace bench/predict/iashim-pair-predict)
    b0=$SECONDS
    if ! cmake --build "$build_dir" "${targets[@]}" > "$wd/build.log" 2>&1; then
      tail -n 15 "$wd/build.log" | sed 's/^/    /'
      cannot_build "the build failed (log: $wd/build.log; a build dir from another machine? try --build-dir build-gpu)"
    fi
    note "built in $((SECONDS - b0)) s"
  fi
  for f in "$shim_lib" "$trace_bin"; do
    [[ -f "$f" ]] || cannot_build "$f does not exist after the build"
  done
  record PASS "libiashim" "source build ($shim_lib)"
else
  section "Bundle"
  info() { sed -n "s/^$1=//p" "$bundle/BUNDLE-INFO"; }
  glibc_built=$(info glibc_built)
  note "built on $(info built_on | tr '_' ' ') with glibc $glibc_built"

  # A process holds one libstdc++ (and libgcc_s): keep the newest of the bundled copy, the
  # system's and PyTorch's, all backward compatible, so neither the shim nor the program
  # misses a symbol version. On a tie the system's wins (what programs load anyway).
  # The bundle is copied so that it can stay read-only.
  mkdir -p "$wd/lib"
  cp -p "$bundle"/lib/* "$wd/lib/"
  provides() { { grep -ao "$2[0-9][0-9.]*[0-9]" "$1" 2>/dev/null || true; } | sed "s/^$2//" | sort -V | tail -n 1; }
  system_lib() {
    local p
    p=$( { ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null || true; } |
      awk -v n="$1" '$1 == n { print $NF; exit }')
    [[ -n "$p" ]] || for d in /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /lib64 /usr/lib64 \
      /lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu; do
      [[ -f "$d/$1" ]] && { p="$d/$1"; break; }
    done
    echo "$p"
  }
  torch_libstdcxx=""
  if [[ $no_torch -eq 0 ]] && command -v "$python" >/dev/null; then
    torch_libstdcxx=$(timeout 120 "$python" -c '
import sys
try:
    import torch  # noqa: F401  (loads the libstdc++ PyTorch runs with)
except Exception:
    sys.exit(0)
for line in open("/proc/self/maps"):
    f = line.split()
    if len(f) >= 6 and "/libstdc++.so.6" in f[5]:
        print(f[5]); break' 2>/dev/null || true)
  fi
  replaced=" "
  for pair in "libstdc++.so.6:GLIBCXX_" "libgcc_s.so.1:GCC_"; do
    soname=${pair%%:*}; tag=${pair#*:}
    [[ -f "$wd/lib/$soname" ]] || continue
    best="$wd/lib/$soname"; best_v=$(provides "$best" "$tag"); best_from="bundled"
    sys_path=$(system_lib "$soname")
    if [[ -n "$sys_path" && -f "$sys_path" ]]; then
      v=$(provides "$sys_path" "$tag")
      if [[ -n "$v" ]] && ver_ge "$v" "$best_v"; then best=$sys_path; best_v=$v; best_from=system; fi
    fi
    if [[ $soname == libstdc++.so.6 && -f "$torch_libstdcxx" && "$torch_libstdcxx" != "$sys_path" ]]; then
      v=$(provides "$torch_libstdcxx" "$tag")
      if [[ -n "$v" ]] && ver_gt "$v" "$best_v"; then best=$torch_libstdcxx; best_v=$v; best_from=PyTorch; fi
    fi
    if [[ $best_from == system ]]; then
      rm -f "$wd/lib/$soname"   # not beside the shim: the loader finds the system's
      replaced+="$soname "
    elif [[ $best_from != bundled ]]; then
      cp -pL "$best" "$wd/lib/$soname"
      replaced+="$soname "
    fi
    note "$soname: using the $best_from copy ($best, $tag$best_v)"
  done
  # glibc: what the files actually used need (GLIBC-NEEDS), and the build machine's.
  glibc_needed=none
  if [[ -f "$bundle/GLIBC-NEEDS" ]]; then
    used() { while read -r v f; do
      if [[ -f "$wd/lib/$f" && "$v" != none && "$replaced" != *" $f "* ]]; then echo "$v $f"; fi; done; }
    glibc_needed=$(used < "$bundle/GLIBC-NEEDS" | sort -V | tail -n 1 | cut -d' ' -f1)
    neediest=$(used < "$bundle/GLIBC-NEEDS" | awk -v v="$glibc_needed" '($1 "") == (v "") { printf "%s ", $2 }')
    note "files used need glibc >= ${glibc_needed:-?} (${neediest% })"
  fi
  if [[ -z "$glibc_here" ]]; then
    record WARN "glibc" "this machine has no glibc (getconf GNU_LIBC_VERSION fails): the bundle may not load"
  elif [[ -n "$glibc_needed" && "$glibc_needed" != none ]] && ! ver_ge "$glibc_here" "$glibc_needed"; then
    record WARN "glibc" "glibc $glibc_here here is older than $glibc_needed that ${neediest% } need: the shim will not load; build from source here"
  elif ! ver_ge "$glibc_here" "$glibc_built"; then
    record WARN "glibc" "glibc $glibc_here here is older than the build machine's $glibc_built (the files used need only ${glibc_needed:-?})"
  else
    record PASS "glibc" "$glibc_here here >= $glibc_built of the build machine"
  fi

  shim_lib="$wd/lib/libiashim.so"
  trace_bin="$wd/lib/iashim-trace"
  predict_bin="$wd/lib/iashim-pair-predict"
  record PASS "libiashim" "bundle $(sed -n 's/^git_rev=//p' "$bundle/BUNDLE-INFO") ($bundle)"
fi
trace_tool() { env -u LD_PRELOAD "$trace_bin" "$@"; }
check_start=$SECONDS

# ------------------------------------------------------------------------------------------
section "Compile the CUDA workload"
# -arch=native (CUDA >= 11.5) compiles for this GPU; otherwise the default arch's PTX is
# JIT-compiled at first launch. libstdc++ is linked statically so that the shim's
# libstdc++ never competes with the workload's.
wl="$wd/workload"
wl_flags=""
for arch in -arch=native ""; do
  flags=(-O2 -std=c++17 -Xcompiler -static-libstdc++ -Xcompiler -static-libgcc)
  [[ -n "$arch" ]] && flags+=("$arch")
  if "$nvcc" "${flags[@]}" -o "$wl" "$src_root/bench/gpu/workload.cu" >> "$wd/nvcc.log" 2>&1; then
    wl_flags="${flags[*]}"; break
  fi
  echo "---- failed: nvcc ${flags[*]}" >> "$wd/nvcc.log"
done
if [[ -z "$wl_flags" ]]; then
  tail -n 15 "$wd/nvcc.log" | sed 's/^/    /'
  cannot "nvcc could not compile bench/gpu/workload.cu (log: $wd/nvcc.log)"
fi
note "nvcc $wl_flags"
wl_desc="default arch (PTX JIT)"
# nvcc falls back to its default arch, with only a warning, when it finds no GPU.
if [[ $wl_flags == *-arch=native* ]] && ! grep -q "Cannot find valid GPU for '-arch=native'" "$wd/nvcc.log"; then
  wl_desc="-arch=native"
fi
record PASS "workload compile" "$wl_desc"

wl_timeout=60
run smoke 120 off -- "$wl" --mode train --iterations 20
if [[ $run_rc -ne 0 || "$(jget verified "$wd/smoke.out")" != true ]]; then
  record FAIL "workload without shim" "$(why smoke)"
  cannot "the workload fails without the shim: a GPU, driver or toolkit problem, not the shim's"
fi
note "device: $(jget device "$wd/smoke.out") (cc $(jget cc "$wd/smoke.out")), driver API $(jget cuda_driver "$wd/smoke.out"), runtime $(jget cuda_runtime "$wd/smoke.out")"

# ------------------------------------------------------------------------------------------
section "Does the shim load?"
run shim-smoke 120 on IASHIM_LOG=info -- "$wl" --mode train --iterations 20
shim_ok=1
if grep -q 'cannot be preloaded\|error while loading shared libraries' "$wd/shim-smoke.err"; then
  record FAIL "shim loads" "$(grep -m1 'cannot be preloaded\|error while loading' "$wd/shim-smoke.err" | cut -c1-220)"
  shim_ok=0
elif [[ $run_rc -ne 0 || "$(jget verified "$wd/shim-smoke.out")" != true ]]; then
  record FAIL "shim loads" "workload under the shim: $(why shim-smoke)"
  shim_ok=0
elif ! grep -q '^iashim: summary ' "$wd/shim-smoke.err"; then
  record FAIL "shim loads" "no 'iashim: summary' line on stderr with IASHIM_LOG=info: the shim did not run"
  shim_ok=0
else
  grep '^iashim: summary ' "$wd/shim-smoke.err" | sed 's/^/  /'
  record PASS "shim loads" "workload runs and verifies under LD_PRELOAD"
fi

# ------------------------------------------------------------------------------------------
# Overhead: the same workload alternately without and with the shim (so drift in clocks
# or temperature hits both alike), medians of the workload's own timer, which covers the
# timed loop only (not process start, context creation or module loading).
declare -A lookup_seen=()
overhead() {  # overhead NAME WORKLOAD-ARGS...
  local name=$1; shift
  local off=() on=() woff=() won=() r bad=""
  for ((r = 1; r <= reps; r++)); do
    for s in off on; do
      local tag="oh-$name-$s-$r"
      if [[ $s == on ]]; then run "$tag" "$wl_timeout" on IASHIM_LOG=info -- "$wl" --mode train "$@"
      else run "$tag" "$wl_timeout" off -- "$wl" --mode train "$@"; fi
      if [[ $run_rc -ne 0 || "$(jget verified "$wd/$tag.out")" != true ]]; then
        bad="$s run $r: $(why "$tag")"; break 2
      fi
      if [[ $s == on ]]; then on+=("$(jget elapsed_s "$wd/$tag.out")"); won+=("$run_ms")
      else off+=("$(jget elapsed_s "$wd/$tag.out")"); woff+=("$run_ms"); fi
      if [[ $s == on ]]; then
        local ll; ll=$(sget launch_lookup "$wd/$tag.err")
        lookup_seen[${ll:-none}]=1
      fi
    done
  done
  if [[ -n "$bad" ]]; then record FAIL "overhead $name" "$bad"; return; fi
  local m_off m_on pct noise per_launch wall launches
  m_off=$(median "${off[@]}"); m_on=$(median "${on[@]}")
  launches=$(( iterations * ($(jget gemm_per_iter "$wd/oh-$name-on-1.out") + $(jget triad_per_iter "$wd/oh-$name-on-1.out")) ))
  pct=$(calc '%+.2f' "($m_on / $m_off - 1) * 100")
  noise=$(printf '%s\n' "${off[@]}" | sort -g | awk -v m="$m_off" '{ a[NR] = $1 } END { printf "%.2f", (a[NR] - a[1]) / m * 100 }')
  per_launch=$(calc '%+.0f' "($m_on - $m_off) / $launches * 1e9")
  wall=$(calc '%+.0f' "$(median "${won[@]}") - $(median "${woff[@]}")")
  note "without shim: median $(calc '%.4f' "$m_off") s = $(calc '%.1f' "$iterations / $m_off") it/s  (runs: ${off[*]})"
  note "with shim:    median $(calc '%.4f' "$m_on") s = $(calc '%.1f' "$iterations / $m_on") it/s  (runs: ${on[*]})"
  note "overhead $pct % (spread of runs without shim: $noise %), $per_launch ns per launch over $launches launches; whole process $wall ms"
  local status=PASS over=""
  if awk -v p="$pct" -v m="$max_overhead" 'BEGIN { exit !(p > m) }'; then status=WARN; over=", above $max_overhead %"; fi
  record "$status" "overhead $name" "$pct %$over ($(calc '%.0f' "$iterations / $m_off") -> $(calc '%.0f' "$iterations / $m_on") it/s; spread $noise %; $per_launch ns/launch)"
}

gpu_shape=(--gemm-n 512 --triad-mib 16 --gemm-per-iter 2 --triad-per-iter 6)
launch_shape=(--gemm-n 32 --triad-mib 1 --gemm-per-iter 4 --triad-per-iter 12)
gpu_bound=(--iterations "$iterations" "${gpu_shape[@]}")
launch_bound=(--iterations "$iterations" "${launch_shape[@]}")
if [[ $shim_ok -eq 1 ]]; then
  section "Overhead, GPU-bound workload (GEMM 512, triad 16 MiB; $reps x 2 runs)"
  overhead gpu-bound "${gpu_bound[@]}"
  section "Overhead, launch-bound workload (tiny kernels, 16 per iteration; $reps x 2 runs)"
  overhead launch-bound "${launch_bound[@]}"

  section "Pass-through (IASHIM_DISABLE=1)"
  run disable "$wl_timeout" on IASHIM_DISABLE=1 -- "$wl" --mode train --iterations 200
  if [[ $run_rc -eq 0 && "$(jget verified "$wd/disable.out")" == true ]]; then
    record PASS "IASHIM_DISABLE=1" "workload runs and verifies"
  else
    record FAIL "IASHIM_DISABLE=1" "$(why disable)"
  fi

  section "Launch lookup path (IASHIM_LOG=info summary)"
  grep '^iashim: summary ' "$wd/oh-gpu-bound-on-1.err" 2>/dev/null | sed 's/^/  /' || true
  paths=$(printf '%s\n' "${!lookup_seen[@]}" | grep -v '^$' | sort | tr '\n' ' ' || true)
  ll=$(sget launch_lookup "$wd/oh-gpu-bound-on-1.err")
  counters=$(for k in lookups_dlsym lookups_proc_v1 lookups_proc_v2 lookups_per_thread; do
    printf '%s=%s ' "${k#lookups_}" "$(sget "$k" "$wd/oh-gpu-bound-on-1.err")"; done)
  case "$ll" in
    symbol|dlsym|proc_v1|proc_v2|several)
      record PASS "lookup path (CUDA runtime)" "launch_lookup=$ll (${counters% }); all runs: ${paths% }" ;;
    "") record FAIL "lookup path (CUDA runtime)" "no launch_lookup in the summary line" ;;
    *) record FAIL "lookup path (CUDA runtime)" "unknown launch_lookup='$ll'" ;;
  esac
fi

# ------------------------------------------------------------------------------------------
# trace_counts FILE: "kernel<TAB>launches<TAB>sampled<TAB>mean_gpu_ns" from --summary, by
# column name (csv_cols, below), without its "(total)" row.
trace_counts() {
  trace_tool --summary "$1" | csv_cols kernel,launches,sampled,mean_gpu_ns |
    awk -F'\t' '$1 != "(total)"'
}
# csv_cols COL,COL...: those columns of `iashim-trace FILE` (stdin), tab-separated, found
# by name in the header. Only the kernel field can hold commas (RFC 4180 quoted), so the
# extra fields a row has beyond the header all belong to it.
csv_cols() {
  awk -F, -v want="$1" '
    NR == 1 {
      H = NF; for (i = 1; i <= NF; i++) pos[$i] = i
      n = split(want, w, ",")
      for (j = 1; j <= n; j++) if (!(w[j] in pos)) { print "no column " w[j] " in: " $0 > "/dev/stderr"; exit 2 }
      if (!("kernel" in pos)) { print "no kernel column in: " $0 > "/dev/stderr"; exit 2 }
      k = pos["kernel"]; next
    }
    {
      extra = NF - H; out = ""
      for (j = 1; j <= n; j++) {
        p = pos[w[j]]
        if (p < k) v = $p
        else if (p > k) v = $(p + extra)
        else { v = $k; for (i = k + 1; i <= k + extra; i++) v = v "," $i; gsub(/^"|"$/, "", v) }
        out = out (j > 1 ? "\t" : "") v
      }
      print out
    }'
}
# find_trace PATTERN-PREFIX ERRFILE: the trace file of the process that printed the summary.
find_trace() {
  local pid; pid=$(sget pid "$2")
  if [[ -n "$pid" && -f "$wd/$1-$pid.bin" ]]; then echo "$wd/$1-$pid.bin"; return; fi
  local files=("$wd/$1"-*.bin)
  if [[ -f "${files[0]}" ]]; then echo "${files[0]}"; fi
}

if [[ $shim_ok -eq 1 ]]; then
  section "Trace: kernels seen by the shim vs launched by the workload"
  run trace "$wl_timeout" on IASHIM_LOG=info "IASHIM_TRACE=$wd/train-trace-%p.bin" -- \
    "$wl" --mode train "${gpu_bound[@]}"
  tfile=$(find_trace train-trace "$wd/trace.err")
  if [[ $run_rc -ne 0 ]]; then
    record FAIL "trace kernel counts" "workload with IASHIM_TRACE: $(why trace)"
  elif [[ -z "$tfile" ]]; then
    record FAIL "trace kernel counts" "no trace file: expected $wd/train-trace-<pid>.bin (IASHIM_TRACE with %p)"
  elif ! trace_counts "$tfile" > "$wd/trace-summary.tsv" 2> "$wd/trace-summary.err"; then
    record FAIL "trace kernel counts" "iashim-trace --summary failed: $(head -c 200 "$wd/trace-summary.err")"
  else
    [[ "$tfile" == *"-$(sget pid "$wd/trace.err").bin" ]] ||
      note "trace file $tfile is not named by the pid in the summary line (%p)"
    note "trace: $tfile ($(du -h "$tfile" | cut -f1)); iashim-trace --summary:"
    { printf 'kernel\tlaunches\tsampled\tmean_gpu_ns\n'; cat "$wd/trace-summary.tsv"; } |
      awk -F'\t' '{ printf "    %-22s %10s %8s %12s\n", $1, $2, $3, $4 }'
    expected=$({ grep '^{' "$wd/trace.out" || true; } | sed -n 's/.*"kernels": {\([^}]*\)}.*/\1/p' |
      tr ',' '\n' | sed -n 's/^ *"\([^"]*\)": *\([0-9]*\) *$/\1\t\2/p')
    bad=""; detail=""
    while IFS=$'\t' read -r k n; do
      seen=$(awk -F'\t' -v k="$k" '$1 == k { s += $2 } END { print s + 0 }' "$wd/trace-summary.tsv")
      detail+="$k $seen/$n, "
      [[ "$seen" == "$n" ]] || bad+="$k: launched $n, trace has $seen; "
    done <<< "$expected"
    extra=$(awk -F'\t' 'NR == FNR { want[$1] = 1; next } !($1 in want) { printf "%s(%s) ", $1, $2 }' \
      <(echo "$expected") "$wd/trace-summary.tsv")
    [[ -n "$extra" ]] && bad+="kernels the workload did not launch: $extra"
    # The full CSV must agree with the summary, and GEMM launches must carry their shape.
    trace_tool "$tfile" > "$wd/trace.csv" 2> "$wd/trace-csv.err" || bad+="iashim-trace FILE failed; "
    if csv_cols event,kernel,grid_x,grid_y,grid_z,block_x,block_y,block_z \
        < "$wd/trace.csv" > "$wd/trace-cols.tsv" 2> "$wd/trace-cols.err"; then
      n_launch=$(awk -F'\t' '$1 == "launch"' "$wd/trace-cols.tsv" | wc -l)
      n_sync=$(awk -F'\t' '$1 == "sync"' "$wd/trace-cols.tsv" | wc -l)
      shapes=$(awk -F'\t' '$1 == "launch" && $2 == "iashim_gemm_tiled" {
          print $3 "x" $4 "x" $5 "/" $6 "x" $7 "x" $8 }' "$wd/trace-cols.tsv" |
        sort | uniq -c | awk '{ printf "%s*%s ", $2, $1 }')
    else
      n_launch=0; n_sync=0; shapes=""
      bad+="CSV: $(head -c 200 "$wd/trace-cols.err"); "
    fi
    total=$(jget launches_total "$wd/trace.out")
    [[ "$n_launch" == "$total" ]] || bad+="CSV has $n_launch launch rows, expected $total; "
    n_gemm=$(printf '%s\n' "$expected" | awk -F'\t' '$1 == "iashim_gemm_tiled" { print $2 }')
    tiles=$(( ($(jget gemm_n "$wd/trace.out") + 15) / 16 ))   # 16x16 tiles, as in workload.cu
    want="${tiles}x${tiles}x1/16x16x1"
    [[ "$shapes" == "$want*$n_gemm " ]] ||
      bad+="GEMM grid/block in the CSV: ${shapes:-none} (want $want*$n_gemm); "
    dropped=$(sget trace_dropped "$wd/trace.err")
    [[ "$dropped" == 0 ]] || bad+="summary says trace_dropped=${dropped:-?}; "
    note "launch rows $n_launch, sync rows $n_sync, summary line: trace_records=$(sget trace_records "$wd/trace.err") trace_dropped=$dropped"
    if [[ -z "$bad" ]]; then record PASS "trace kernel counts" "${detail%, }"
    else record FAIL "trace kernel counts" "$bad"; fi
    syncs_expected=$(( $(jget iterations "$wd/trace.out") + $(jget warmup "$wd/trace.out") ))
    if (( n_sync >= syncs_expected )); then
      record PASS "trace sync events" "$n_sync >= $syncs_expected per-iteration syncs"
    else
      record WARN "trace sync events" "$n_sync sync rows, the workload synchronised $syncs_expected+ times"
    fi
  fi

  section "Lookup paths: probe launches through each way of reaching cuLaunchKernel"
  for via in runtime symbol dlsym proc; do
    tag="lookup-$via"
    run "$tag" "$wl_timeout" on IASHIM_LOG=info "IASHIM_TRACE=$wd/$tag-%p.bin" -- \
      "$wl" --mode lookup --via "$via" --iterations 1000
    if [[ $run_rc -eq 3 ]]; then record SKIP "lookup via $via" "$(why "$tag")"; continue; fi
    if [[ $run_rc -ne 0 ]]; then record FAIL "lookup via $via" "$(why "$tag")"; continue; fi
    tf=$(find_trace "$tag" "$wd/$tag.err")
    seen=0; names="no trace file"
    if [[ -n "$tf" ]]; then
      if trace_counts "$tf" > "$wd/$tag.tsv" 2> "$wd/$tag.tsv.err"; then
        seen=$(awk -F'\t' '{ s += $2 } END { print s + 0 }' "$wd/$tag.tsv")
        names=$(cut -f1 "$wd/$tag.tsv" | sort -u | tr '\n' ' ')
      else
        names="iashim-trace failed: $(head -c 150 "$wd/$tag.tsv.err")"
      fi
    fi
    d="$seen/1000 in trace (${names% }), launch_lookup=$(sget launch_lookup "$wd/$tag.err")"
    d+=" dlsym=$(sget lookups_dlsym "$wd/$tag.err") proc_v1=$(sget lookups_proc_v1 "$wd/$tag.err") proc_v2=$(sget lookups_proc_v2 "$wd/$tag.err")"
    if [[ "$seen" == 1000 ]]; then record PASS "lookup via $via" "$d"; else record FAIL "lookup via $via" "$d"; fi
  done

  # ----------------------------------------------------------------------------------------
  section "Memory quota: IASHIM_MEM_LIMIT=${mem_gib}GiB, cudaMalloc in ${chunk_mib} MiB chunks"
  max_mib=$((quota_mib * 2))
  run oom-off "$wl_timeout" off -- "$wl" --mode oom --chunk-mib "$chunk_mib" --max-mib "$max_mib"
  got_off=$(jget got_mib "$wd/oom-off.out")
  note "without shim: got ${got_off:-?} MiB of $max_mib asked ($(jget error "$wd/oom-off.out")), device reports $(jget mem_total_mib "$wd/oom-off.out") MiB total"
  if [[ $run_rc -ne 0 || -z "$got_off" ]]; then
    record WARN "quota control run" "without the shim the oom mode failed: $(why oom-off)"
  elif (( got_off <= quota_mib )); then
    record WARN "quota control run" "only $got_off MiB free without the shim: the quota check cannot tell the shim from the GPU"
  fi
  run oom-on "$wl_timeout" on IASHIM_LOG=info "IASHIM_MEM_LIMIT=${mem_gib}GiB" -- \
    "$wl" --mode oom --chunk-mib "$chunk_mib" --max-mib "$max_mib"
  got=$(jget got_mib "$wd/oom-on.out"); err=$(jget error "$wd/oom-on.out")
  refused=$(sget mem_refused "$wd/oom-on.err")
  note "with shim: got ${got:-?} MiB, then ${err:-?}; mem_refused=${refused:-?}; cudaMemGetInfo total $(jget mem_total_mib "$wd/oom-on.out") MiB, free $(jget mem_free_mib "$wd/oom-on.out") MiB"
  if [[ $run_rc -ne 0 || -z "$got" ]]; then
    record FAIL "memory quota" "$(why oom-on)"
  else
    lo=$((quota_mib - chunk_mib))
    if [[ "$err" == cudaErrorMemoryAllocation ]] && (( got <= quota_mib && got > lo )) && [[ "${refused:-0}" -ge 1 ]]; then
      record PASS "memory quota" "OOM after $got MiB (quota $quota_mib, window $((lo + 1))..$quota_mib), $err, mem_refused=$refused"
    else
      record FAIL "memory quota" "got $got MiB then '$err' (want cudaErrorMemoryAllocation within $((lo + 1))..$quota_mib MiB), mem_refused=${refused:-?}"
    fi
    if [[ "$(jget realloc_ok "$wd/oom-on.out")" == true ]]; then
      record PASS "quota released on free" "the same $got MiB allocated again after freeing"
    else
      record FAIL "quota released on free" "re-allocating $got MiB after freeing failed: $(jget realloc_error "$wd/oom-on.out")"
    fi
    # The driver frees a reset context's memory without a cudaFree; the quota must follow.
    if [[ "$(jget reset_realloc_ok "$wd/oom-on.out")" == true ]]; then
      record PASS "quota released on cudaDeviceReset" "the same $got MiB allocated again after a reset"
    else
      record FAIL "quota released on cudaDeviceReset" "re-allocating $got MiB after cudaDeviceReset failed: $(jget reset_realloc_error "$wd/oom-on.out")"
    fi
    total_on=$(jget mem_total_mib "$wd/oom-on.out")
    if [[ -n "$total_on" ]] && (( total_on <= quota_mib )); then
      record PASS "cudaMemGetInfo shows quota" "total $total_on MiB"
    else
      record WARN "cudaMemGetInfo shows quota" "total ${total_on:-?} MiB, quota $quota_mib MiB"
    fi
  fi
fi

# ------------------------------------------------------------------------------------------
# Sharing: what two processes keep of their speed on one GPU, and how a 0.3/0.7 split of
# GPU time holds by throughput, beside what simgpu's model predicts for the same kernels
# (iashim-pair-predict rebuilds each process from its shim trace: kernels, measured
# durations, grids, host time). Runs are timed (--seconds), so a pair overlaps throughout.

# run_pair TAG_A TAG_B LIMIT "ENV_A" "ENV_B" -- ARGS_A... -- ARGS_B...: the two commands
# (shim on) at once, each like run's; sets pair_rc (the worse of the two).
run_pair() {
  local ta=$1 tb=$2 limit=$3 ea=$4 eb=$5; shift 6
  local args_a=() args_b=()
  while [[ $# -gt 0 && "$1" != "--" ]]; do args_a+=("$1"); shift; done
  shift
  args_b=("$@")
  pair_rc=0
  if (( SECONDS - check_start > run_budget )); then pair_rc=125; return; fi
  # shellcheck disable=SC2086  # ENV_A/ENV_B are VAR=VALUE words
  timeout -k 5 "$limit" env $ea "LD_PRELOAD=$shim_lib" "${args_a[@]}" < /dev/null \
    > "$wd/$ta.out" 2> "$wd/$ta.err" & local pa=$!
  # shellcheck disable=SC2086
  timeout -k 5 "$limit" env $eb "LD_PRELOAD=$shim_lib" "${args_b[@]}" < /dev/null \
    > "$wd/$tb.out" 2> "$wd/$tb.err" & local pb=$!
  wait "$pa" || pair_rc=$?
  wait "$pb" || pair_rc=$?
}
kept() { awk -v p="$1" -v s="$2" 'BEGIN { if (s > 0 && p != "") printf "%.2f", p / s; else print "-" }'; }

if [[ $shim_ok -eq 1 ]]; then
  section "Sharing: two workloads alone, paired and at shares 0.3/0.7 (${share_seconds}s runs)"
  sms=$(jget sms "$wd/smoke.out")
  share_limit=$(( share_seconds + 60 ))
  for w in gpu launch; do
    shape=("${gpu_shape[@]}"); [[ $w == launch ]] && shape=("${launch_shape[@]}")
    run "share-$w-alone" "$share_limit" on "IASHIM_TRACE=$wd/share-$w-%p.bin" -- \
      "$wl" --mode train --seconds "$share_seconds" "${shape[@]}"
    [[ $run_rc -eq 0 ]] || note "$w-bound alone: $(why "share-$w-alone")"
  done
  run_pair share-gpu-paired share-launch-paired "$share_limit" "" "" -- \
    "$wl" --mode train --seconds "$share_seconds" "${gpu_shape[@]}" -- \
    "$wl" --mode train --seconds "$share_seconds" "${launch_shape[@]}"
  alone_g=$(jget iters_per_s "$wd/share-gpu-alone.out"); alone_l=$(jget iters_per_s "$wd/share-launch-alone.out")
  paired_g=$(jget iters_per_s "$wd/share-gpu-paired.out"); paired_l=$(jget iters_per_s "$wd/share-launch-paired.out")
  predicted=""
  if [[ -x "$predict_bin" && -n "$sms" ]]; then
    tg=$(find_trace share-gpu "$wd/share-gpu-alone.err"); tl=$(find_trace share-launch "$wd/share-launch-alone.err")
    if [[ -n "$tg" && -n "$tl" ]] && env -u LD_PRELOAD "$predict_bin" --sms "$sms" \
        --mem gemm=0.2,triad=0.95,fill=0.9 "$tg" "$tl" > "$wd/share-predict.json" 2> "$wd/share-predict.err"; then
      predicted=$(cat "$wd/share-predict.json")
    else
      note "no prediction: $(head -c 200 "$wd/share-predict.err" 2>/dev/null)"
    fi
  else
    note "no prediction: ${predict_bin:-iashim-pair-predict} missing, or the workload did not say its SM count"
  fi
  pget() {  # pget JOB_INDEX KEY: from the prediction's JSON
    tr -d ' ' <<< "$predicted" | sed 's/},{/}\n{/g' | sed -n "$(($1 + 1))p" |
      sed -n "s/.*\"$2\":\([0-9.]*\).*/\1/p"
  }
  printf '  %-12s %10s %11s %11s %14s %14s\n' workload "alone it/s" "paired it/s" "kept (GPU)" "kept (simgpu)" "simgpu alone"
  printf '  %-12s %10s %11s %11s %14s %14s\n' gpu-bound "${alone_g:--}" "${paired_g:--}" \
    "$(kept "$paired_g" "$alone_g")" "$(pget 0 predicted_kept)" "$(pget 0 sim_solo_it_per_s)"
  printf '  %-12s %10s %11s %11s %14s %14s\n' launch-bound "${alone_l:--}" "${paired_l:--}" \
    "$(kept "$paired_l" "$alone_l")" "$(pget 1 predicted_kept)" "$(pget 1 sim_solo_it_per_s)"
  note "(simgpu alone: the rate simgpu gives each process rebuilt from its trace; it should match"
  note " alone it/s. kept: paired / alone. Memory intensity by kernel name: gemm 0.2, triad 0.95.)"
  if [[ $pair_rc -ne 0 || -z "$paired_g" || -z "$paired_l" ]]; then
    record FAIL "sharing: pair" "the two workloads together: exit $pair_rc $(tail -c 150 "$wd/share-gpu-paired.err" 2>/dev/null | tr '\n' ' ')"
  else
    record PASS "sharing: pair" "kept gpu-bound $(kept "$paired_g" "$alone_g") (simgpu $(pget 0 predicted_kept)), launch-bound $(kept "$paired_l" "$alone_l") (simgpu $(pget 1 predicted_kept))"
  fi

  # Two copies of the GPU-bound workload held to 0.3 and 0.7 of GPU time by the shim alone
  # (IASHIM_SHARE, no coordinator): their throughput should split the same way.
  run_pair share-03 share-07 "$share_limit" "IASHIM_SHARE=0.3 IASHIM_PRIORITY=opportunistic" \
    "IASHIM_SHARE=0.7 IASHIM_PRIORITY=opportunistic" -- \
    "$wl" --mode train --seconds "$share_seconds" "${gpu_shape[@]}" -- \
    "$wl" --mode train --seconds "$share_seconds" "${gpu_shape[@]}"
  r3=$(jget iters_per_s "$wd/share-03.out"); r7=$(jget iters_per_s "$wd/share-07.out")
  if [[ $pair_rc -ne 0 || -z "$r3" || -z "$r7" ]]; then
    record FAIL "sharing: 0.3/0.7 split" "exit $pair_rc $(tail -c 150 "$wd/share-03.err" 2>/dev/null | tr '\n' ' ')"
  else
    split=$(awk -v a="$r3" -v b="$r7" 'BEGIN { printf "%.3f", a / (a + b) }')
    note "shares 0.3/0.7: $r3 and $r7 it/s, throughput split $split / $(awk -v s="$split" 'BEGIN { printf "%.3f", 1 - s }') (the shim holds 0.30/0.70 of GPU time; on simgpu, bench/gate measures the split by throughput)"
    status=PASS
    awk -v s="$split" 'BEGIN { exit !(s < 0.25 || s > 0.35) }' && status=WARN
    record "$status" "sharing: 0.3/0.7 split" "throughput split $split (want 0.30 +- 0.05); $r3 / $r7 it/s"
  fi
fi

# ------------------------------------------------------------------------------------------
section "PyTorch"
torch_reason=""
if [[ $no_torch -eq 1 ]]; then torch_reason="--no-torch"
elif [[ $shim_ok -eq 0 ]]; then torch_reason="the shim does not load"
elif ! command -v "$python" >/dev/null; then torch_reason="no $python"
else
  # A marker, so that warnings printed by torch are not taken for the answer.
  probe=$(timeout 120 "$python" -c '
import torch
print("torch-probe", torch.__version__, torch.version.cuda, torch.cuda.is_available())' 2>&1 || true)
  read -r _ tv tc tavail _ <<< "$(grep '^torch-probe ' <<< "$probe" || true)"
  probe=$(tail -n 1 <<< "$probe")
  if [[ "${tavail:-}" != True ]]; then
    torch_reason="torch not usable with CUDA via $python (${probe:0:150})"
  fi
fi
if [[ -n "$torch_reason" ]]; then
  record SKIP "pytorch" "$torch_reason"
else
  note "torch $tv (CUDA $tc) with $($python --version 2>&1)"
  # Keep the whole check under 8 minutes: fewer repetitions if time is short.
  t_reps=$(( reps < 3 ? reps : 3 ))
  per_run=$(( torch_seconds + 15 ))
  left=$(( 400 - (SECONDS - check_start) ))
  while (( t_reps > 1 && (2 * t_reps + 1) * per_run > left )); do t_reps=$((t_reps - 1)); done
  if (( 3 * per_run > left )); then
    record SKIP "pytorch" "not enough time left in the 8-minute budget (${left}s)"
  else
    loop="$src_root/bench/gpu/torch_loop.py"
    pt_timeout=$(( torch_seconds + 150 ))
    off=(); on=(); bad=""; bad_off=""
    for ((r = 1; r <= t_reps; r++)); do
      run "torch-off-$r" "$pt_timeout" off -- "$python" "$loop" --seconds "$torch_seconds"
      [[ $run_rc -eq 0 ]] || { bad_off="$(why "torch-off-$r")"; break; }
      off+=("$(jget iters_per_s "$wd/torch-off-$r.out")")
      run "torch-on-$r" "$pt_timeout" on IASHIM_LOG=info -- "$python" "$loop" --seconds "$torch_seconds"
      [[ $run_rc -eq 0 ]] || { bad="with shim: $(why "torch-on-$r")"; break; }
      on+=("$(jget iters_per_s "$wd/torch-on-$r.out")")
    done
    if [[ -n "$bad_off" ]]; then
      # Without the shim: the environment's problem, not something the shim did.
      record WARN "pytorch" "torch_loop.py fails without the shim, so it was not compared: $bad_off"
    elif [[ -n "$bad" ]]; then
      if grep -q GLIBCXX "$wd"/torch-on-*.err 2>/dev/null; then
        note "hint: a GLIBCXX error means the shim's libstdc++ is older than this Python environment's"
      fi
      record FAIL "pytorch under shim" "$bad"
    else
      m_off=$(median "${off[@]}"); m_on=$(median "${on[@]}")
      pct=$(calc '%+.2f' "($m_off / $m_on - 1) * 100")
      note "without shim: median $(calc '%.1f' "$m_off") it/s (runs: ${off[*]})"
      note "with shim:    median $(calc '%.1f' "$m_on") it/s (runs: ${on[*]})"
      status=PASS; over=""
      if awk -v p="$pct" -v m="$max_overhead" 'BEGIN { exit !(p > m) }'; then status=WARN; over=", above $max_overhead %"; fi
      record "$status" "overhead pytorch" "$pct %$over ($(calc '%.1f' "$m_off") -> $(calc '%.1f' "$m_on") it/s, $t_reps x 2 runs of ${torch_seconds}s)"

      run torch-trace "$pt_timeout" on IASHIM_LOG=info "IASHIM_TRACE=$wd/torch-trace-%p.bin" -- \
        "$python" "$loop" --seconds "$torch_seconds"
      if [[ $run_rc -ne 0 ]]; then
        record FAIL "pytorch trace" "$(why torch-trace)"
      else
        { grep '^iashim: summary ' "$wd/torch-trace.err" || true; } | indent
        launches=$(sget launches "$wd/torch-trace.err")
        its=$(jget total_iterations "$wd/torch-trace.out")
        tf=$(find_trace torch-trace "$wd/torch-trace.err")
        if [[ -n "$tf" ]] && trace_counts "$tf" > "$wd/torch-summary.tsv" 2>/dev/null; then
          kinds=$(wc -l < "$wd/torch-summary.tsv")
          seen=$(awk -F'\t' '{ s += $2 } END { print s + 0 }' "$wd/torch-summary.tsv")
          note "most launched kernels:"
          sort -t$'\t' -k2,2nr "$wd/torch-summary.tsv" |
            awk -F'\t' 'NR <= 8 { printf "    %9s  %s\n", $2, substr($1, 1, 90) }'
        else
          kinds="?"; seen="?"
        fi
        detail="$seen launches in trace, $kinds kernel names, summary launches=${launches:-?}, $(calc '%.1f' "${launches:-0} / ${its:-1}") per iteration over $its iterations"
        if [[ "${launches:-0}" -gt 0 && "$(jget loss_finite "$wd/torch-trace.out")" == true ]]; then
          if [[ "$seen" == "$launches" ]]; then record PASS "pytorch kernels seen" "$detail"
          else record WARN "pytorch kernels seen" "$detail (trace and summary differ)"; fi
        else
          record FAIL "pytorch kernels seen" "$detail"
        fi
        record PASS "pytorch lookup path" "launch_lookup=$(sget launch_lookup "$wd/torch-trace.err") dlsym=$(sget lookups_dlsym "$wd/torch-trace.err") proc_v1=$(sget lookups_proc_v1 "$wd/torch-trace.err") proc_v2=$(sget lookups_proc_v2 "$wd/torch-trace.err") per_thread=$(sget lookups_per_thread "$wd/torch-trace.err")"

        # Two training loops on the GPU at once, beside simgpu's prediction from the trace.
        run_pair torch-pair-1 torch-pair-2 "$pt_timeout" "" "" -- \
          "$python" "$loop" --seconds "$torch_seconds" -- "$python" "$loop" --seconds "$torch_seconds"
        p1=$(jget iters_per_s "$wd/torch-pair-1.out"); p2=$(jget iters_per_s "$wd/torch-pair-2.out")
        tp=""
        if [[ -n "$tf" && -x "$predict_bin" && -n "${sms:-}" ]] &&
            env -u LD_PRELOAD "$predict_bin" --sms "$sms" "$tf" > "$wd/torch-predict.json" 2>/dev/null; then
          tp=$(tr -d ' ' < "$wd/torch-predict.json" | sed -n 's/.*"predicted_kept":\([0-9.]*\)}.*/\1/p')
        fi
        if [[ $pair_rc -ne 0 || -z "$p1" || -z "$p2" ]]; then
          record FAIL "pytorch pair" "two loops together: exit $pair_rc"
        else
          record PASS "pytorch pair" "kept $(kept "$p1" "$m_on") and $(kept "$p2" "$m_on") of $(calc '%.1f' "$m_on") it/s alone (simgpu ${tp:--}; kernels' memory intensity unknown: 0.5)"
        fi
      fi
    fi
  fi
fi

# ------------------------------------------------------------------------------------------
section "Summary"
printf '  %-28s %-6s %s\n' "check" "result" "detail"
printf '  %-28s %-6s %s\n' "----------------------------" "------" "------"
failed=0
for i in "${!res_name[@]}"; do
  printf '  %-28s %-6s %s\n' "${res_name[$i]}" "${res_status[$i]}" "${res_detail[$i]}"
  if [[ "${res_status[$i]}" == FAIL ]]; then failed=$((failed + 1)); fi
done
echo
echo "  $((SECONDS - check_start)) s of checks ($((SECONDS - t_start)) s in all); logs and traces: $wd"
if [[ $failed -gt 0 ]]; then
  echo "  gpu-check: $failed check(s) FAILED"
  exit 1
fi
echo "  gpu-check: all checks passed"
