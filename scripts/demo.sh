#!/usr/bin/env bash
# The main job: training jobs share simulated GPUs under iashim, protected on
# the GPU and placed by learned interference across GPUs.
#
# Installs and builds if needed (scripts/setup.sh), starts iashim-coordinator,
# and runs one guaranteed and two opportunistic iashim-fakejob models through
# `iashim run`: each alone on a simulated GPU of its own, then all three
# together on GPU 0 without budgets, then with the control loop on. Ends with a table of throughputs, the
# guaranteed job's slowdown, the final shares and each job's energy per
# iteration alone and shared (simgpu's power model).
#
# Then act 4, placement: four jobs of two synthetic kinds (memory-bound and
# compute-bound, bench/data/models/synthetic) arrive on two simulated GPUs,
# placed by a coordinator that has watched earlier jobs share GPUs, beside the
# same four jobs on two more GPUs placed round-robin in arrival order, as a
# scheduler that ignores interference would. Both run the control loop. Its
# table gives each job's GPU and throughput, the guaranteed jobs' slowdown and
# the total GPUs' worth of progress of each placement. About 110 s after the
# build.
#
#   scripts/demo.sh [--guaranteed MODEL] [--opportunistic "MODEL MODEL"]
#                   [--managed-s S] [--check] [--build-dir DIR]
#
# --check exits 1 unless the guaranteed job's slowdown is within its 10%
# target with the loop on (as the demo measures it over the last 10 s, which
# may read up to a point above what the coordinator holds: 11% at most) and
# clearly worse (over 1.5x the target) without it,
# and placement by learned interference makes more progress than round-robin
# (the integration test runs it so). --build-dir uses an existing build and
# skips scripts/setup.sh.
# The body is one block, read whole before any of it runs, so that a script
# edited or updated by git while it runs goes on as it was read.
{
set -euo pipefail
cd "$(dirname "$0")/.."

guaranteed=resnet50
opportunistic="transformer lstm"
solo_s=5
unmanaged_s=10
managed_s=50
check=0
build=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --guaranteed) guaranteed="${2:-}"; shift 2 ;;
    --opportunistic) opportunistic="${2:-}"; shift 2 ;;
    --managed-s)
      managed_s="${2:-}"; shift 2
      [[ "$managed_s" =~ ^[0-9]+$ && "$managed_s" -ge 20 && "$managed_s" -le 600 ]] ||
        { echo "demo.sh: --managed-s must be an integer 20..600 (got '$managed_s')" >&2; exit 2; } ;;
    --check) check=1; shift ;;
    --build-dir) build="${2:-}"; shift 2
      [[ -x "$build/coordinator/cli/iashim" ]] ||
        { echo "demo.sh: --build-dir '$build' has no built iashim" >&2; exit 2; } ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "demo.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
for m in $guaranteed $opportunistic; do
  [[ -f "bench/data/models/$m.model" ]] ||
    { echo "demo.sh: no model '$m' (see bench/data/models/)" >&2; exit 2; }
done

if [[ -z "$build" ]]; then
  scripts/setup.sh >/dev/null
  build=$PWD/build
fi
build=$(cd "$build" && pwd)
iashim=$build/coordinator/cli/iashim
fakejob=$build/bench/iashim-fakejob
run_dir=/tmp/iashim-demo-$(id -u)-$$
mkdir -p "$run_dir"
chmod 700 "$run_dir"
export SIMGPU_NAMESPACE="iashim-demo-$$"
# One simulated V100 per job, so that the solo runs go side by side; the
# shared acts pin every job to GPU 0.
jobs_n=$(wc -w <<<"$guaranteed $opportunistic")
export SIMGPU_DEVICES="${jobs_n}xTesla V100-SXM2-32GB:32GiB:80"
export LD_LIBRARY_PATH="$build/simgpu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"  # NVML for the coordinator
export IASHIM_COORDINATOR="ipc://$run_dir/router"
pub="ipc://$run_dir/pub"
tmp=$(mktemp -d)
coordinator_pid=""
job_pids=()
placer_pids=()
cleanup() {
  for p in "${job_pids[@]}" $coordinator_pid "${placer_pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp" "$run_dir"
  rm -f /dev/shm/"$SIMGPU_NAMESPACE"-gpu*
  for c in learned roundrobin; do rm -f /dev/shm/"$SIMGPU_NAMESPACE-$c"-gpu*; done
}
trap cleanup EXIT

start_coordinator() {  # [--no-control]
  # --min-gain -1: the demo puts three jobs on one GPU on purpose. By default the
  # coordinator would queue the third, which its interference model predicts to
  # add less progress than it costs the other opportunistic job.
  "$build/coordinator/daemon/iashim-coordinator" --listen "$IASHIM_COORDINATOR" --pub "$pub" \
    --state-dir "$tmp/state" --min-gain -1 "$@" >>"$tmp/coordinator.log" 2>&1 &
  coordinator_pid=$!
  for _ in $(seq 50); do
    "$iashim" status --timeout-s 0.2 >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "demo.sh: the coordinator did not start:" >&2
  cat "$tmp/coordinator.log" >&2
  exit 1
}
stop_coordinator() {
  kill -TERM "$coordinator_pid"
  wait "$coordinator_pid" || true
  coordinator_pid=""
}
# Runs MODEL for SECONDS on GPU (default 0) through `iashim run`, per-second
# lines into FILE.
start_job() {  # PRIORITY MODEL SECONDS FILE [GPU]
  "$iashim" run --simgpu --priority "$1" --mem 10GiB --job "demo-$2" --kind "$2" --gpu "${5:-0}" -- \
    "$fakejob" --model "$2" --seconds "$3" >"$4" 2>>"$tmp/jobs.log" &
  job_pids+=($!)
}
wait_jobs() {
  for p in "${job_pids[@]}"; do
    wait "$p" || { echo "demo.sh: a job failed:" >&2; cat "$tmp/jobs.log" >&2; exit 1; }
  done
  job_pids=()
}
# Iterations/s of a job over its per-second lines with t in (FROM, TO]: the
# iterations those lines completed over the time those iterations took
# (count x mean iteration time), so a job at 4 it/s is not read in steps of
# a whole iteration per second.
rate() {  # FILE FROM TO
  awk -v from="$2" -v to="$3" -F'[:,}]' '
    /"t":/ && !/summary/ && $6 + 0 > 0 {
      t = $2 + 0; if (t > from && t <= to) { n += $4; s += $4 * $6 / 1000 } }
    END { if (s > 0) printf "%.2f", n / s; else print "nan" }' "$1"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }

echo "iashim demo: one guaranteed job ($guaranteed) and opportunistic jobs ($opportunistic)"
echo "on simulated Tesla V100s (simgpu). Watch it live in another terminal:"
echo "    $build/coordinator/top/iashim-top --pub $pub"
echo

start_coordinator
echo "== 1. each job alone, on a GPU of its own (${solo_s}s): solo throughput, and the coordinator's solo baselines =="
gpu=0
for m in $guaranteed $opportunistic; do
  start_job guaranteed "$m" "$solo_s" "$tmp/solo-$m" $((gpu++))
done
sleep $((solo_s - 1))
"$iashim" status --json >"$tmp/solo-status.json" 2>/dev/null || true
wait_jobs
for m in $guaranteed $opportunistic; do
  printf '   %-12s %8s it/s\n' "$m" "$(rate "$tmp/solo-$m" 1 "$solo_s")"
done
stop_coordinator

echo "== 2. all together, no budgets (${unmanaged_s}s) =="
start_coordinator --no-control
start_job guaranteed "$guaranteed" "$unmanaged_s" "$tmp/unmanaged-$guaranteed"
for m in $opportunistic; do start_job opportunistic "$m" "$unmanaged_s" "$tmp/unmanaged-$m"; done
wait_jobs
stop_coordinator

echo "== 3. all together, control loop on (${managed_s}s; measured over the last 10s) =="
start_coordinator
start_job guaranteed "$guaranteed" "$managed_s" "$tmp/managed-$guaranteed"
for m in $opportunistic; do start_job opportunistic "$m" "$managed_s" "$tmp/managed-$m"; done
sleep $((managed_s - 3))
"$iashim" status >"$tmp/status.txt" 2>&1 || true
"$iashim" status --json >"$tmp/status.json" 2>/dev/null || true
wait_jobs
stop_coordinator

from=$((managed_s - 10))
solo_g=$(rate "$tmp/solo-$guaranteed" 1 "$solo_s")
unmanaged_g=$(rate "$tmp/unmanaged-$guaranteed" 3 "$unmanaged_s")
managed_g=$(rate "$tmp/managed-$guaranteed" "$from" "$managed_s")
field_of() {  # FILE JOB FIELD: a job's number in an `iashim status --json` file
  tr -d '\n ' <"$1" 2>/dev/null | grep -o "\"job\":\"$2\"[^}]*" |
    sed -n "s/.*\"$3\":\([0-9.eE+-]*\).*/\1/p" | head -1
}
joules() {  # a J/iteration figure, or - when the coordinator had none
  [[ -n "$1" ]] && awk -v j="$1" 'BEGIN { printf "%.1f", j }' || echo -
}
echo
printf '| %-12s | %-13s | %9s | %15s | %13s | %11s | %10s | %13s |\n' job priority "solo it/s" \
  "unmanaged it/s" "managed it/s" "final share" "solo J/it" "managed J/it"
printf '|%s|%s|%s|%s|%s|%s|%s|%s|\n' -------------- --------------- ----------- ----------------- \
  --------------- ------------- ------------ ---------------
for m in $guaranteed $opportunistic; do
  prio=opportunistic
  [[ $m == "$guaranteed" ]] && prio=guaranteed
  share=$(field_of "$tmp/status.json" "demo-$m" share)
  [[ -n "$share" ]] && share=$(awk -v s="$share" 'BEGIN { printf "%.2f", s }')
  printf '| %-12s | %-13s | %9s | %15s | %13s | %11s | %10s | %13s |\n' "$m" "$prio" \
    "$(rate "$tmp/solo-$m" 1 "$solo_s")" "$(rate "$tmp/unmanaged-$m" 3 "$unmanaged_s")" \
    "$(rate "$tmp/managed-$m" "$from" "$managed_s")" "${share:--}" \
    "$(joules "$(field_of "$tmp/solo-status.json" "demo-$m" energy_per_iteration_j)")" \
    "$(joules "$(field_of "$tmp/status.json" "demo-$m" energy_per_iteration_j)")"
done
slow_unmanaged=$(awk -v s="$solo_g" -v r="$unmanaged_g" 'BEGIN { printf "%.1f", 100 * (s / r - 1) }')
slow_managed=$(awk -v s="$solo_g" -v r="$managed_g" 'BEGIN { printf "%.1f", 100 * (s / r - 1) }')
echo
coordinator_slow=$(field_of "$tmp/status.json" "demo-$guaranteed" slowdown)
[[ -n "$coordinator_slow" ]] &&
  coordinator_slow=$(awk -v s="$coordinator_slow" 'BEGIN { printf "%.1f%%", 100 * s }')
echo "guaranteed job ($guaranteed) slowdown against solo: ${slow_unmanaged}% without budgets," \
  "${slow_managed}% with the control loop (target 10%; the coordinator's own measurement" \
  "near the end: ${coordinator_slow:--})."
echo "J/it: the GPU's energy split among its jobs by GPU time, per iteration (alone, and over the"
echo "shared run); a shared GPU's idle power is split too. Simulated board power: simgpu/README.md."
echo "(simgpu is a simulation calibrated to Gavel's V100 measurements: see simgpu/README.md.)"
echo
echo "The coordinator's view near the end (iashim status):"
sed 's/^/    /' "$tmp/status.txt"

# --- 4. placement ----------------------------------------------------------------
# Two coordinators, each with two simulated GPUs of its own (its own simgpu
# namespace and socket): "learned" places by its interference model; on
# "roundrobin" each job is pinned to the next GPU in turn. --min-gain 0: place
# wherever sharing gains anything (by default a job that gains this little
# next to a protected job is queued, which is right, but shows nothing here).
synthetic=$PWD/bench/data/models/synthetic
on() {  # CLUSTER COMMAND...: COMMAND against CLUSTER's GPUs and coordinator
  local c=$1
  shift
  SIMGPU_NAMESPACE="$SIMGPU_NAMESPACE-$c" SIMGPU_DEVICES="2xTesla V100-SXM2-32GB:32GiB:80" \
    IASHIM_COORDINATOR="ipc://$run_dir/router-$c" "$@"
}
# The same in the background, with $! the command itself (a backgrounded
# function's $! is a subshell, and killing it left the command running: two
# coordinators outlived every demo run).
on_bg() {  # CLUSTER COMMAND...
  local c=$1
  shift
  (
    export SIMGPU_NAMESPACE="$SIMGPU_NAMESPACE-$c" SIMGPU_DEVICES="2xTesla V100-SXM2-32GB:32GiB:80" \
      IASHIM_COORDINATOR="ipc://$run_dir/router-$c"
    exec "$@"
  ) &
}
start_placer() {  # CLUSTER
  on_bg "$1" "$build/coordinator/daemon/iashim-coordinator" --listen "ipc://$run_dir/router-$1" \
    --pub "ipc://$run_dir/pub-$1" --state-dir "$tmp/state-$1" --min-gain 0 \
    >>"$tmp/coordinator-$1.log" 2>&1
  placer_pids+=($!)
  for _ in $(seq 50); do
    on "$1" "$iashim" status --timeout-s 0.2 >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "demo.sh: the $1 coordinator did not start:" >&2
  cat "$tmp/coordinator-$1.log" >&2
  exit 1
}
act_job() {  # CLUSTER NAME PRIORITY KIND SECONDS [GPU]
  local gpu=()
  [[ -n "${6:-}" ]] && gpu=(--gpu "$6")
  on_bg "$1" "$iashim" run --simgpu --priority "$3" --mem 4GiB --job "$2" --kind "$4" "${gpu[@]}" -- \
    "$fakejob" --model "$synthetic/$4.model" --seconds "$5" >"$tmp/act4-$1-$2" 2>"$tmp/act4-$1-$2.err"
  job_pids+=($!)
}
arrivals=("g-mem guaranteed membound" "g-comp guaranteed computebound"
          "o-mem opportunistic membound" "o-comp opportunistic computebound")
place_s=20
echo
echo "== 4. placement: four jobs arrive on two GPUs, placed by a coordinator that learned who"
echo "      may share with whom, beside the same jobs on two more GPUs placed round-robin =="
echo "   watch: $build/coordinator/top/iashim-top --pub ipc://$run_dir/pub-learned"
start_placer learned
start_placer roundrobin
echo "   each kind alone on both (4s), then the learned one watches two pairs share a GPU (14s)"
for c in learned roundrobin; do
  act_job "$c" solo-mem opportunistic membound 4 0
  act_job "$c" solo-comp opportunistic computebound 4 1
done
wait_jobs
act_job learned watch-mm-a opportunistic membound 14 0
act_job learned watch-mm-b opportunistic membound 14 0
act_job learned watch-mc-m opportunistic membound 14 1
act_job learned watch-mc-c opportunistic computebound 14 1
wait_jobs
echo "   what it learned (iashim status --pairs):"
on learned "$iashim" status --pairs --timeout-s 1 2>/dev/null | sed -n '/^victim/,$p' | sed 's/^/    /'
echo "   the four jobs arrive, one a second, on both (${place_s}s; measured over the last 10s)"
turn=0
for entry in "${arrivals[@]}"; do
  read -r name prio kind <<<"$entry"
  act_job learned "$name" "$prio" "$kind" "$place_s"
  act_job roundrobin "$name" "$prio" "$kind" "$place_s" $((turn++ % 2))
  sleep 1
done
wait_jobs
for p in "${placer_pids[@]}"; do
  kill -TERM "$p"
  wait "$p" || true
done
placer_pids=()

solo_mem=$(rate "$tmp/act4-roundrobin-solo-mem" 1 4)
solo_comp=$(rate "$tmp/act4-roundrobin-solo-comp" 1 4)
gpu_of_job() { sed -n 's/^iashim: job .* placed on .* GPU \([0-9]*\),.*/\1/p' "$1" | head -1; }
from=$((place_s - 10))
echo
printf '| %-10s | %-6s | %-13s | %-12s | %3s | %6s | %6s | %8s |\n' placement job priority kind GPU "it/s" kept slowdown
printf '|%s|%s|%s|%s|%s|%s|%s|%s|\n' ------------ -------- --------------- -------------- ----- -------- -------- ----------
declare -A progress worst_guaranteed
for c in learned roundrobin; do
  progress[$c]=0
  worst_guaranteed[$c]=0
  for entry in "${arrivals[@]}"; do
    read -r name prio kind <<<"$entry"
    solo=$solo_mem
    [[ $kind == computebound ]] && solo=$solo_comp
    r=$(rate "$tmp/act4-$c-$name" "$from" "$place_s")
    kept=$(ratio "$r" "$solo")
    slow=$(awk -v s="$solo" -v r="$r" 'BEGIN { if (r > 0) printf "%.1f%%", 100 * (s / r - 1); else print "-" }')
    progress[$c]=$(awk -v p="${progress[$c]}" -v k="$kept" 'BEGIN { printf "%.2f", p + (k == "-" ? 0 : k) }')
    if [[ $prio == guaranteed ]]; then
      worst_guaranteed[$c]=$(awk -v w="${worst_guaranteed[$c]}" -v s="${slow%\%}" 'BEGIN { printf "%.1f", (s > w) ? s : w }')
    else
      slow=""
    fi
    printf '| %-10s | %-6s | %-13s | %-12s | %3s | %6s | %6s | %8s |\n' "$c" "$name" "$prio" "$kind" \
      "$(gpu_of_job "$tmp/act4-$c-$name.err")" "$r" "$kept" "$slow"
  done
done
echo
for c in learned roundrobin; do
  echo "$c placement: ${progress[$c]} GPUs' worth of progress on 2 GPUs (sum of kept fractions);" \
    "guaranteed jobs' worst slowdown ${worst_guaranteed[$c]}% (target 10%)."
done
echo "kept: throughput over the same kind alone. In simgpu two memory-bound jobs share DRAM bandwidth"
echo "(about 0.58 each), a memory-bound and a compute-bound job keep about 0.87 each."

if [[ $check == 1 ]]; then
  awk -v m="$slow_managed" -v u="$slow_unmanaged" 'BEGIN { exit !(m <= 11 && u > 15) }' || {
    echo "demo.sh --check: FAILED (want managed <= 11%: the 10% target and a point of" \
      "measurement; unmanaged > 15%)" >&2
    exit 1
  }
  for m in $guaranteed $opportunistic; do
    for f in "$tmp/solo-status.json" "$tmp/status.json"; do
      [[ -n "$(field_of "$f" "demo-$m" energy_per_iteration_j)" ]] || {
        echo "demo.sh --check: FAILED (no energy per iteration for $m in $(basename "$f"))" >&2
        exit 1
      }
    done
  done
  awk -v l="${progress[learned]}" -v r="${progress[roundrobin]}" 'BEGIN { exit !(l > r) }' || {
    echo "demo.sh --check: FAILED (placement by learned interference made ${progress[learned]} GPUs' worth" \
      "of progress, round-robin ${progress[roundrobin]})" >&2
    exit 1
  }
  echo "demo.sh --check: passed"
fi
exit
}
