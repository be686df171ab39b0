#!/usr/bin/env bash
# The whole test suite, from a fresh machine: installs and builds (scripts/setup.sh),
# then runs every test with CTest, then the sanitizer builds' suites, and prints
# how long each stage took.
#
#   scripts/test.sh            # everything: default build, Slurm (scripts/slurm-test.sh),
#                              # a 2-node cluster (scripts/cluster-smoke.sh),
#                              # ASan+UBSan, TSan, 5 s of each fuzzer
#   scripts/test.sh --quick    # default build only
#
# The sanitizer trees build in the background while the default suite runs
# (their log: build/sanitizer-builds.log).
# The body is one block, read whole before any of it runs, so that a script
# edited or updated by git while it runs goes on as it was read.
{
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
for a in "$@"; do
  case "$a" in
    --quick) quick=1 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
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
on_exit() {
  local rc=$?
  stop_sanitizer_builds
  (exit "$rc")
  print_stage_times
}
trap on_exit EXIT
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

# The sanitizer trees are built in the background, at idle priority, while the
# default suite, Slurm and the cluster run: those stages wait on simulated GPUs
# and on daemons (the CPU was 13% and 4% busy in them, measured on 2 cores), and
# a SCHED_IDLE process runs only on a core nothing else wants, so the tests get
# the CPU whenever they ask for it. A clean run here went from 30:30 to 19:03
# (with the tests compiled at -O1, tests/CMakeLists.txt); the foreground stages
# took as long as before (tests 6:17 against 6:31, Slurm 3:20 against 3:18).
# (nice 19 where SCHED_IDLE is refused: the tests still win nearly every core.)
sanitizer_pid=""
sanitizer_log=build/sanitizer-builds.log  # build/ exists by then
stop_sanitizer_builds() {
  [[ -n "$sanitizer_pid" ]] || return 0
  kill -- "-$sanitizer_pid" 2>/dev/null || kill "$sanitizer_pid" 2>/dev/null || true
  wait "$sanitizer_pid" 2>/dev/null || true
  sanitizer_pid=""
}
build_sanitizer_trees() {
  local idle=(chrt --idle 0)
  "${idle[@]}" true 2>/dev/null || idle=(nice -n 19)
  # One clang tree serves the ASan+UBSan tests and the fuzzers.
  local started=$SECONDS
  "${idle[@]}" scripts/setup.sh --sanitize address
  "${idle[@]}" scripts/setup.sh --sanitize thread
  echo "test.sh: the sanitizer trees took $((SECONDS - started)) s in the background"
}
wait_for_sanitizer_builds() {
  local rc=0
  wait "$sanitizer_pid" || rc=$?
  sanitizer_pid=""
  if [[ $rc -ne 0 ]]; then
    echo "test.sh: the sanitizer builds failed (exit $rc); the end of $sanitizer_log:" >&2
    tail -n 60 "$sanitizer_log" >&2
    return "$rc"
  fi
  tail -n 1 "$sanitizer_log"
}

stage build scripts/setup.sh
if [[ $quick -eq 0 ]]; then
  # clang installs now, in the foreground: apt must not run beside slurm-test.sh's.
  stage sanitizer-packages scripts/setup.sh --sanitize address --no-build
  # Its own process group (set -m), so that a failure stops the whole build.
  set -m
  build_sanitizer_trees >"$sanitizer_log" 2>&1 &
  sanitizer_pid=$!
  set +m
fi
# Twice the cores: most of the default suite's time is processes waiting on
# simulated GPUs, and the tests that measure throughput run alone (RUN_SERIAL).
stage tests ctest_in build -j $((jobs * 2))

if [[ $quick -eq 0 ]]; then
  # A real slurmctld and slurmd: needs root (it starts daemons, makes device nodes).
  stage slurm as_root scripts/slurm-test.sh --build-dir build
  # Two Slurm nodes and a head in namespaces of their own: root too.
  stage cluster as_root scripts/cluster-smoke.sh --build-dir build
  # What is left of the sanitizer builds (usually little or nothing).
  stage sanitizer-builds wait_for_sanitizer_builds
  stage asan-tests ctest_in build-asan -L sanitize
  stage tsan-tests ctest_in build-tsan -L threaded
  stage fuzz scripts/fuzz.sh --short
fi
echo "test.sh: all suites passed"
exit
}
