#!/usr/bin/env bash
# Straggler-aware budgets against per-GPU ones, for a guaranteed data-parallel
# gang (issue 19): a 4-rank iashim-fakejob gang on four simulated V100s runs
# alone (its baseline), then opportunistic jobs join two of its GPUs and the
# coordinator's control loop throttles them, once per --gang-budgets mode.
# Everything is measured from the jobs' own output (iterations), not from what
# the coordinator believes. Simulated (simgpu): see bench/gang/README.md.
#
#   bench/gang/gang_budget_bench.sh [--build-dir DIR] [--modes M,M,...]
#       [--settle-s S] [--window-s S] [--link-gbps X] [--quick]
set -euo pipefail

usage() {
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
  echo "defaults: --build-dir build --modes straggler,independent,average --settle-s 40"
  echo "          --window-s 30 --link-gbps 4.105; --quick: one mode (straggler), 15 s + 10 s"
}

build=build
modes=straggler,independent,average
settle_s=40
window_s=30
link_gbps=4.105
alone_s=20
# shellcheck disable=SC2034  # read by bench_args.sh
bench=gang_budget_bench.sh
# shellcheck source=bench_args.sh
source "$(dirname "$0")/bench_args.sh"
while [[ $# -gt 0 ]]; do
  case $1 in
    --build-dir) build=${2:?--build-dir needs a value}; shift 2 ;;
    --modes) modes=${2:?--modes needs a value}; shift 2 ;;
    --settle-s) number --settle-s "${2:-}" 5 600; settle_s=$2; shift 2 ;;
    --window-s) number --window-s "${2:-}" 3 600; window_s=$2; shift 2 ;;
    --link-gbps) number --link-gbps "${2:-}" 0.01 100000; link_gbps=$2; shift 2 ;;
    --quick) modes=straggler; settle_s=15; window_s=10; alone_s=15; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "gang_budget_bench.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
IFS=, read -r -a mode_list <<<"$modes"
for m in "${mode_list[@]}"; do
  [[ $m == straggler || $m == independent || $m == average ]] || {
    echo "gang_budget_bench.sh: --modes: '$m' is not straggler, independent or average" >&2
    exit 2
  }
done
build=$(cd "$build" 2>/dev/null && pwd) || { echo "gang_budget_bench.sh: no build directory" >&2; exit 2; }
iashim=$build/coordinator/cli/iashim
coordinator=$build/coordinator/daemon/iashim-coordinator
fakejob=$build/bench/iashim-fakejob
for f in "$iashim" "$coordinator" "$fakejob" "$build/simgpu/libcuda.so.1" "$build/libiashim/libiashim.so"; do
  [[ -x $f || -f $f ]] || { echo "gang_budget_bench.sh: $f is missing: build first" >&2; exit 2; }
done

# The gang and its guests. The link is the one fitted to Gavel's ResNet-50 on
# 2 GPUs (bench/data/models/README.md), so the all-reduce is a real part of
# the iteration.
gang_model=resnet50
guest0=vgg16     # on the gang's GPU 0
guest1=resnet50  # on its GPU 1
target=0.10

tmp=$(mktemp -d)
export SIMGPU_NAMESPACE="iashim-gangbench-$$"
export SIMGPU_DEVICES="4xTesla V100-SXM2-32GB:32GiB:80"
export SIMGPU_LINK_GBPS=$link_gbps
export LD_LIBRARY_PATH="$build/simgpu"
export IASHIM_COORDINATOR="ipc://$tmp/router"
pids=()
stop_all() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  pids=()
  rm -f /dev/shm/"$SIMGPU_NAMESPACE"-gpu* /dev/shm/"$SIMGPU_NAMESPACE"-collectives
}
cleanup() { stop_all; rm -rf "$tmp"; }
trap cleanup EXIT

# mean_iter_ms FILE FROM TO: rank 0's mean iteration time over its seconds FROM..TO.
mean_iter_ms() {
  awk -v from="$2" -v to="$3" -F'[:,}]' '/"rank": 0, "t"/ {
      t = $4 + 0; ms = $8 + 0
      if (t > from && t <= to && ms > 0) { sum += ms; n++ } }
    END { if (n == 0) exit 1; printf "%.2f", sum / n }' "$1"
}
# rate FILE FROM TO: iterations per second of a one-process job over its seconds FROM..TO.
rate() {
  awk -v from="$2" -v to="$3" -F'[:,}]' '/^\{"t"/ {
      t = $2 + 0; if (t > from && t <= to) { sum += $4; n++ } }
    END { if (n == 0) exit 1; printf "%.3f", sum / n }' "$1"
}
fail() {
  echo "gang_budget_bench.sh: $*" >&2
  for f in "$tmp"/*.log "$tmp"/*.out; do [[ -f $f ]] && { echo "--- $f" >&2; tail -5 "$f" >&2; }; done
  exit 1
}
progress() { printf '%s  %s\n' "$(date +%T)" "$*" >&2; }

start_coordinator() {  # MODE
  rm -rf "$tmp/state"
  "$coordinator" --listen "$IASHIM_COORDINATOR" --pub "ipc://$tmp/pub" --state-dir "$tmp/state" \
    --slowdown-target "$target" --placement simple --gang-budgets "$1" >>"$tmp/coordinator.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do
    "$iashim" status --timeout-s 0.2 >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  fail "the coordinator did not answer"
}

# The guests alone, side by side on GPUs 0 and 1 (no coordinator): their solo speed.
solo_s=15
progress "guests alone ($guest0 on GPU 0, $guest1 on GPU 1), $solo_s s"
CUDA_VISIBLE_DEVICES=0 "$fakejob" --model "$guest0" --seconds "$solo_s" >"$tmp/solo0.out" 2>&1 &
pids+=($!)
CUDA_VISIBLE_DEVICES=1 "$fakejob" --model "$guest1" --seconds "$solo_s" >"$tmp/solo1.out" 2>&1 &
pids+=($!)
wait "${pids[@]}" || fail "a guest failed alone"
pids=()
solo0=$(rate "$tmp/solo0.out" 3 "$solo_s") || fail "no rate for $guest0 alone"
solo1=$(rate "$tmp/solo1.out" 3 "$solo_s") || fail "no rate for $guest1 alone"
stop_all

rows=()
for mode in "${mode_list[@]}"; do
  progress "--gang-budgets $mode: gang alone $alone_s s, then guests for $settle_s s + $window_s s measured"
  : >"$tmp/coordinator.log"
  start_coordinator "$mode"
  run_s=$(awk -v a="$alone_s" -v s="$settle_s" -v w="$window_s" 'BEGIN { printf "%d", a + s + w + 3 }')
  "$iashim" run --simgpu --gpus 4 --mem 12GiB --job gang -- \
    "$fakejob" --model "$gang_model" --ranks 4 --seconds "$run_s" >"$tmp/gang.out" 2>&1 &
  running=($!)
  sleep "$alone_s"
  guest_s=$(awk -v s="$settle_s" -v w="$window_s" 'BEGIN { printf "%d", s + w + 1 }')
  "$iashim" run --simgpu --gpu 0 --priority opportunistic --mem 12GiB --job guest0 -- \
    "$fakejob" --model "$guest0" --seconds "$guest_s" >"$tmp/guest0.out" 2>&1 &
  running+=($!)
  "$iashim" run --simgpu --gpu 1 --priority opportunistic --mem 12GiB --job guest1 -- \
    "$fakejob" --model "$guest1" --seconds "$guest_s" >"$tmp/guest1.out" 2>&1 &
  running+=($!)
  pids+=("${running[@]}")
  sleep "$(awk -v s="$settle_s" -v w="$window_s" 'BEGIN { print s + w / 2 }')"
  "$iashim" status >"$tmp/status-$mode.txt" 2>&1 || true
  for j in "${running[@]}"; do wait "$j" || fail "a job of mode $mode failed"; done
  # Seconds of the gang's own clock: alone from 5 s (the ranks have met and
  # warmed up) to its guests' arrival; shared over the guests' measured window.
  alone_ms=$(mean_iter_ms "$tmp/gang.out" 5 "$alone_s") || fail "no alone iterations ($mode)"
  from=$(awk -v a="$alone_s" -v s="$settle_s" 'BEGIN { print a + s }')
  to=$(awk -v a="$alone_s" -v s="$settle_s" -v w="$window_s" 'BEGIN { print a + s + w }')
  shared_ms=$(mean_iter_ms "$tmp/gang.out" "$from" "$to") || fail "no shared iterations ($mode)"
  g0=$(rate "$tmp/guest0.out" "$settle_s" "$((settle_s + window_s))") || fail "no rate for guest0"
  g1=$(rate "$tmp/guest1.out" "$settle_s" "$((settle_s + window_s))") || fail "no rate for guest1"
  rows+=("$(awk -v m="$mode" -v a="$alone_ms" -v s="$shared_ms" -v t="$target" \
    -v g0="$g0" -v s0="$solo0" -v g1="$g1" -v s1="$solo1" 'BEGIN {
      slow = s / a - 1
      printf "| %s | %.1f | %.1f | %+.1f%% | %s | %.2f (%.2f of solo) | %.2f (%.2f of solo) | %.2f |\n",
        m, 1000 / a, 1000 / s, 100 * slow, slow <= t ? "yes" : "**no**",
        g0, g0 / s0, g1, g1 / s1, g0 / s0 + g1 / s1 }')")
  echo "--- iashim status mid-window, --gang-budgets $mode" >&2
  sed -n '/gang \[/,/^$/p' "$tmp/status-$mode.txt" >&2
  stop_all
done

echo "## Guaranteed 4-rank $gang_model gang, $guest0 on its GPU 0 and $guest1 on its GPU 1 (target $(awk -v t="$target" 'BEGIN { print 100 * t }')%, simgpu, link $link_gbps GB/s)"
echo
echo "Solo: $guest0 $solo0 it/s, $guest1 $solo1 it/s. Gang alone and shared from its rank 0's iterations."
echo
echo "| --gang-budgets | gang alone it/s | gang shared it/s | gang slowdown | within target | $guest0 it/s | $guest1 it/s | guests' GPUs of progress |"
echo "|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
