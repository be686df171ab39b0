#!/usr/bin/env bash
# Runs the libFuzzer targets of tests/fuzz/ (built by scripts/setup.sh
# --sanitize address, or --fuzz, into build-asan/fuzz/) and prints what each
# did. Each target starts from a COPY of its checked-in seed corpus
# (tests/fuzz/corpus/<target>/, never grown here) with its dictionary, if any. A finding (crash, leak, timeout, out of
# memory) is kept in build-asan/fuzz-findings/<target>/ and makes the script
# exit 1; reproduce it with build-asan/fuzz/fuzz_<target> FILE.
#
#   scripts/fuzz.sh                      # every target, 300 s each
#   scripts/fuzz.sh --short              # every target, 5 s each (CI)
#   scripts/fuzz.sh --seconds 60 --only coordinator_message,shim_inbound
#   scripts/fuzz.sh --jobs 1             # one target at a time (default: one per core)
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=300
only=""
jobs=$(nproc)
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seconds) seconds="${2:-}"; shift 2 ;;
    --seconds=*) seconds="${1#*=}"; shift ;;
    --only) only="${2:-}"; shift 2 ;;
    --only=*) only="${1#*=}"; shift ;;
    --short) seconds=5; shift ;;
    --jobs) jobs="${2:-}"; shift 2 ;;
    --jobs=*) jobs="${1#*=}"; shift ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "fuzz.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
if ! [[ "$jobs" =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz.sh: --jobs must be a positive whole number (got '$jobs')" >&2
  exit 2
fi
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz.sh: --seconds must be a positive whole number (got '$seconds')" >&2
  exit 2
fi

build=build-asan
bin_dir=$build/fuzz
if ! compgen -G "$bin_dir/fuzz_*" >/dev/null; then
  echo "fuzz.sh: no fuzz targets in $bin_dir/; build them with scripts/setup.sh --fuzz (or --sanitize address)" >&2
  exit 2
fi
targets=()
for bin in "$bin_dir"/fuzz_*; do
  name=${bin##*/fuzz_}
  [[ $name == seed_corpus ]] && continue
  targets+=("$name")
done
if [[ -n "$only" ]]; then
  IFS=, read -r -a wanted <<<"$only"
  for w in "${wanted[@]}"; do
    if [[ ! -x "$bin_dir/fuzz_$w" ]]; then
      echo "fuzz.sh: no target '$w' (targets: ${targets[*]})" >&2
      exit 2
    fi
  done
  targets=("${wanted[@]}")
fi

# Inputs larger than this are not what the parser meets: files and messages
# up to 64 KiB, a command line or an address up to 4 KiB.
max_len_of() {
  case "$1" in
    *_options|listen_address|shim_config|simgpu_config) echo 4096 ;;
    *) echo 65536 ;;
  esac
}

work=$build/fuzz-work
findings_root=$build/fuzz-findings
logs=$build/fuzz-logs
mkdir -p "$work" "$findings_root" "$logs"
# Runs target $1 and writes its table row to $logs/$1.row.
run_target() {
  local t=$1
  local corpus=$work/$t
  local findings=$findings_root/$t
  rm -rf "$corpus" "$findings"
  mkdir -p "$corpus" "$findings"
  local seeds=tests/fuzz/corpus/$t
  if [[ -d "$seeds" ]]; then cp "$seeds"/* "$corpus"/ 2>/dev/null || true; fi
  local flags=(-max_total_time="$seconds" -max_len="$(max_len_of "$t")" -timeout=10
               -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$findings/")
  [[ -f tests/fuzz/$t.dict ]] && flags+=(-dict="tests/fuzz/$t.dict")
  echo "fuzz.sh: $t for ${seconds} s"
  local rc=0
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$bin_dir/fuzz_$t" "${flags[@]}" "$corpus" >"$logs/$t.log" 2>&1 || rc=$?
  local execs rate units found
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$logs/$t.log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$logs/$t.log" | tail -1)
  units=$(find "$corpus" -type f | wc -l)
  found=$(find "$findings" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
            -o -name 'oom-*' \) | wc -l)
  if [[ $rc -ne 0 && $found -eq 0 ]]; then
    found="rc=$rc"  # failed without an artifact (e.g. it did not start): see the log
  fi
  printf '%-22s %12s %9s %8s %9s\n' "$t" "${execs:-?}" "${rate:-?}" "$units" "$found" \
    >"$logs/$t.row"
}

# Each target is one process on one core: run as many at once as there are
# cores (CI's 25 short runs take half the time on 2 cores).
running=0
for t in "${targets[@]}"; do
  if [[ $running -ge $jobs ]]; then
    wait -n
    running=$((running - 1))
  fi
  run_target "$t" &
  running=$((running + 1))
done
wait
status=0
rows=()
for t in "${targets[@]}"; do
  row=$(cat "$logs/$t.row")
  rows+=("$row")
  [[ $(awk '{print $NF}' <<<"$row") != 0 ]] && status=1
done

echo
printf '%-22s %12s %9s %8s %9s\n' target executions exec/s corpus findings
for r in "${rows[@]}"; do echo "$r"; done
if [[ $status -ne 0 ]]; then
  echo "fuzz.sh: findings in $findings_root/ (logs in $logs/); reproduce with $bin_dir/fuzz_<target> FILE" >&2
else
  echo "fuzz.sh: no findings (${seconds} s per target; logs in $logs/)"
fi
exit $status
