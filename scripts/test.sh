#!/usr/bin/env bash
# The whole test suite, from a fresh machine: installs and builds (scripts/setup.sh),
# then runs every test with CTest, then the sanitizer builds' suites.
#
#   scripts/test.sh            # everything: default build, Slurm (scripts/slurm-test.sh),
#                              # ASan+UBSan, TSan, 5 s of each fuzzer
#   scripts/test.sh --quick    # default build only
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
for a in "$@"; do
  case "$a" in
    --quick) quick=1 ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    *) echo "test.sh: unknown argument '$a' (see --help)" >&2; exit 2 ;;
  esac
done
jobs=$(nproc)

scripts/setup.sh
(cd build && ctest --output-on-failure -j "$jobs")

if [[ $quick -eq 0 ]]; then
  # A real slurmctld and slurmd: needs root (it starts daemons, makes device nodes).
  if [[ $(id -u) -eq 0 ]]; then
    scripts/slurm-test.sh --build-dir build
  else
    sudo scripts/slurm-test.sh --build-dir build
  fi
  scripts/setup.sh --sanitize address
  (cd build-asan && ctest --output-on-failure -j "$jobs" -L sanitize)
  scripts/setup.sh --sanitize thread
  (cd build-tsan && ctest --output-on-failure -j "$jobs" -L sanitize)
  scripts/setup.sh --fuzz
  scripts/fuzz.sh --short
fi
echo "test.sh: all suites passed"
