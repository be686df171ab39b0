#!/usr/bin/env bash
# Soak: many simulated shims (iashim-loadgen) with churn against one
# coordinator for at least 10 minutes (issue 7). Not in CI.
#
# Prints the figures every minute and at the end: messages per second,
# budget delivery latency p99, the coordinator's RSS after the warm-up, at the
# end, its maximum and its slope over the second half. Exits 1 when a
# registration was dropped, a shim was not connected at the end, the
# coordinator counted invalid messages or died, or its RSS grew past the
# bounds; 2 on a bad argument. Builds what it needs if it is not built.
#
#   scripts/soak.sh [--minutes N] [--shims N] [--churn R] [--window-ms MS] [--allow-short]
#                   [--rss-bound-mib M] [--slope-bound-kib-per-min K] [--build-dir DIR]
#
# --minutes N (default 10; under 10 only with --allow-short), --shims N
# (default 1000), --churn R shims leaving and joining per second (default 2),
# --window-ms MS telemetry window of every shim (default 100, the shim's),
# --rss-bound-mib M: end RSS at most M MiB above the post-warm-up RSS (default
# 64 + 64 KiB per shim: ZeroMQ gives each peer two 256-message chunks per
# direction, whose pages are touched only as they fill, so RSS rises for tens
# of minutes before it levels; bench/load/README.md), --slope-bound-kib-per-min
# K: also fail when the second-half RSS slope is above K (default: off, for
# that reason), --build-dir DIR (default build; built when the binaries are
# missing).
set -euo pipefail
cd "$(dirname "$0")/.."

minutes=10
shims=1000
churn=2
window_ms=100
allow_short=0
rss_bound_mib=""
slope_bound=""
build=build
usage() { sed -n '2,24p' "$0"; }
need_int() {  # name value min max
  [[ "$2" =~ ^[0-9]+$ && "$2" -ge "$3" && "$2" -le "$4" ]] ||
    { echo "soak.sh: $1 must be a whole number in [$3, $4] (got '$2')" >&2; exit 2; }
}
while [[ $# -gt 0 ]]; do
  case "$1" in
    --minutes) minutes="${2:-}"; shift 2; need_int --minutes "$minutes" 1 1440 ;;
    --shims) shims="${2:-}"; shift 2; need_int --shims "$shims" 1 20000 ;;
    --churn) churn="${2:-}"; shift 2
      [[ "$churn" =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
        { echo "soak.sh: --churn must be a number >= 0 (got '$churn')" >&2; exit 2; } ;;
    --window-ms) window_ms="${2:-}"; shift 2; need_int --window-ms "$window_ms" 10 10000 ;;
    --allow-short) allow_short=1; shift ;;
    --rss-bound-mib) rss_bound_mib="${2:-}"; shift 2; need_int --rss-bound-mib "$rss_bound_mib" 1 65536 ;;
    --slope-bound-kib-per-min) slope_bound="${2:-}"; shift 2
      need_int --slope-bound-kib-per-min "$slope_bound" 1 1048576 ;;
    --build-dir) build="${2:-}"; shift 2
      [[ -n "$build" ]] || { echo "soak.sh: --build-dir needs a directory" >&2; exit 2; } ;;
    -h|--help) usage; exit 0 ;;
    *) echo "soak.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ -n "$rss_bound_mib" ]] || rss_bound_mib=$((64 + shims * 64 / 1024))
if [[ $minutes -lt 10 && $allow_short == 0 ]]; then
  echo "soak.sh: --minutes $minutes is under the 10-minute soak; add --allow-short to run it anyway" >&2
  exit 2
fi

coordinator=$build/coordinator/daemon/iashim-coordinator
loadgen=$build/bench/iashim-loadgen
if [[ ! -x "$coordinator" || ! -x "$loadgen" ]]; then
  echo "soak.sh: building iashim-coordinator and iashim-loadgen in $build"
  [[ -f "$build/build.ninja" || -f "$build/Makefile" ]] || cmake -S . -B "$build" -G Ninja
  cmake --build "$build" --target iashim-coordinator iashim-loadgen
fi

tmp=$(mktemp -d)
coordinator_pid=""
loadgen_pid=""
cleanup() {
  [[ -n "$loadgen_pid" ]] && kill "$loadgen_pid" 2>/dev/null || true
  [[ -n "$coordinator_pid" ]] && kill "$coordinator_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true  # a socket per shim on each side

"$loadgen" --shims "$shims" --write-cluster "$tmp/cluster.txt"
"$coordinator" --listen "ipc://$tmp/router" --pub "ipc://$tmp/pub" --state-dir "$tmp/state" \
  --cluster "$tmp/cluster.txt" >"$tmp/coordinator.log" 2>&1 &
coordinator_pid=$!
echo "soak: $shims shims, churn $churn/s, $window_ms ms windows, $minutes min; coordinator pid $coordinator_pid"

"$loadgen" --shims "$shims" --seconds $((minutes * 60)) --churn "$churn" --warmup-s 30 --window-ms "$window_ms" \
  --report-every 60 --endpoint "ipc://$tmp/router" --coordinator-pid "$coordinator_pid" --json \
  > >(tee "$tmp/load.out") &
loadgen_pid=$!
status=0
wait "$loadgen_pid" || status=$?
loadgen_pid=""
[[ $status == 0 ]] || { echo "soak: FAIL: iashim-loadgen exited $status" >&2; exit 1; }
sleep 0.2  # tee's last lines

failures=()
kill -0 "$coordinator_pid" 2>/dev/null || failures+=("the coordinator died")
value() { grep -o "\"$1\": [-0-9.a-z]*" "$tmp/load.out" | tail -1 | awk '{print $2}'; }
[[ $(value final_snapshot) == true ]] || failures+=("no final state snapshot")
[[ $(value dropped_registrations) == 0 ]] || failures+=("$(value dropped_registrations) registrations dropped")
[[ $(value connected) == "$(value live)" ]] ||
  failures+=("$(value connected) of $(value live) live shims connected at the end")
[[ $(value coordinator_invalid_messages) == 0 ]] ||
  failures+=("$(value coordinator_invalid_messages) invalid messages counted by the coordinator")
warmup=$(value rss_warmup_kib)
end=$(value rss_end_kib)
slope=$(value rss_slope_kib_per_min)
if [[ -z "$warmup" || "$warmup" == 0 ]]; then
  failures+=("no RSS sample after the warm-up")
else
  [[ $end -le $((warmup + rss_bound_mib * 1024)) ]] ||
    failures+=("RSS grew from $warmup KiB after the warm-up to $end KiB (bound +$rss_bound_mib MiB)")
  [[ -z "$slope_bound" ]] || awk -v s="$slope" -v b="$slope_bound" 'BEGIN { exit !(s <= b) }' ||
    failures+=("RSS grew $slope KiB/min over the second half (bound $slope_bound)")
fi
echo
printf 'soak summary: %s msgs/s sent, %s received; budget latency p99 %s ms (max %s); RSS %s KiB after warm-up, %s at the end, %s max, slope %s KiB/min\n' \
  "$(value sent_per_s)" "$(value received_per_s)" "$(value latency_p99_ms)" "$(value latency_max_ms)" \
  "$warmup" "$end" "$(value rss_max_kib)" "$slope"
if [[ ${#failures[@]} -gt 0 ]]; then
  for f in "${failures[@]}"; do echo "soak: FAIL: $f" >&2; done
  echo "--- coordinator log (tail)" >&2
  tail -20 "$tmp/coordinator.log" >&2 || true
  exit 1
fi
echo "soak: PASS"
