#!/usr/bin/env bash
# The whole test suite, from a fresh machine: installs and builds (scripts/setup.sh),
# then runs every test with CTest, then the sanitizer builds' suites, and prints
# how long each stage took.
#
#   scripts/test.sh            # everything: default build, Slurm (scripts/slurm-test.sh),
#                              # a 2-node cluster (scripts/cluster-smoke.sh),
#                              # ASan+UBSan, TSan, 5 s of each fuzzer
#   scripts/test.sh --quick    # default build only
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
for a in "$@"; do
  case "$a" in
    --quick) quick=1 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "test.sh: unknown argument '$a' (see --help)" >&2; exit 2 ;;
  esac
done
jobs=$(nproc)

# Each stage's wall time, printed at the end whether the run passed or not, so
# a CI log always shows where its minutes went (CI's limit is 90, our budget 35).
stage_names=()
stage_seconds=()
run_started=$SECONDS
print_stage_times() {
  local rc=$?
  [[ ${#stage_names[@]} -gt 0 ]] || return 0
  echo "test.sh: stage times"
  local i
  for i in "${!stage_names[@]}"; do
    printf 'test.sh:   %-18s %4d:%02d\n' "${stage_names[$i]}" \
      $((stage_seconds[i] / 60)) $((stage_seconds[i] % 60))
  done
  local total=$((SECONDS - run_started))
  printf 'test.sh:   %-18s %4d:%02d%s\n' total $((total / 60)) $((total % 60)) \
    "$([[ $rc -ne 0 ]] && echo "  (stopped by a failure)")"
}
trap print_stage_times EXIT
stage() {
  local name=$1
  shift
  echo "test.sh: stage $name: $*"
  local started=$SECONDS
  stage_names+=("$name")
  stage_seconds+=(0)
  "$@"
  stage_seconds[-1]=$((SECONDS - started))
}
as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi
}
ctest_in() {
  local dir=$1
  shift
  (cd "$dir" && ctest --output-on-failure -j "$jobs" "$@")  # a later -j wins
}

stage build scripts/setup.sh
# Twice the cores: most of the default suite's time is processes waiting on
# simulated GPUs, and the tests that measure throughput run alone (RUN_SERIAL).
stage tests ctest_in build -j $((jobs * 2))

if [[ $quick -eq 0 ]]; then
  # A real slurmctld and slurmd: needs root (it starts daemons, makes device nodes).
  stage slurm as_root scripts/slurm-test.sh --build-dir build
  # Two Slurm nodes and a head in namespaces of their own: root too.
  stage cluster as_root scripts/cluster-smoke.sh --build-dir build
  # One clang tree serves the ASan+UBSan tests and the fuzzers.
  stage asan-build scripts/setup.sh --sanitize address
  stage asan-tests ctest_in build-asan -L sanitize
  stage tsan-build scripts/setup.sh --sanitize thread
  stage tsan-tests ctest_in build-tsan -L threaded
  stage fuzz scripts/fuzz.sh --short
fi
echo "test.sh: all suites passed"
