#!/usr/bin/env bash
# Issue 18's first pillar, live: the coordinator learns from shim telemetry
# alone which pairs of job kinds hurt each other, and places by it. Two
# simulated GPUs, two synthetic kinds (bench/data/models/synthetic/): memory-bound element-wise
# passes and compute-bound GEMMs. In simgpu two memory-bound jobs share DRAM
# bandwidth and two compute-bound jobs share the SMs (each keeps about 0.55),
# while a memory-bound job next to a compute-bound one keeps about 0.87.
#
#  1. Each kind alone (its solo baseline, saved by kind), then every pair
#     sharing a GPU unthrottled (no guaranteed job: no control), for the
#     coordinator's 10-second observations.
#  2. A guaranteed memory-bound job on GPU 0 and a guaranteed compute-bound job
#     on GPU 1; where would an opportunistic job of each kind go? Its worst
#     partner is the guaranteed job of its own kind: the memory-bound one must
#     be sent to GPU 1, the compute-bound one to GPU 0.
#     A third kind, row reductions (memory-bound too), only ever ran alone:
#     the model has never seen it next to anything, and must send it away
#     from the memory-bound job from its kernel mix alone.
#  3. `iashim status --pairs`: what was learned, measured beside predicted.
#
#   placement_learns_pairs_test.sh BUILD_DIR
set -euo pipefail
# shellcheck source=simgpu_session.sh
source "$(dirname "$0")/simgpu_session.sh" "$1" learnpairs "2xTesla V100-SXM2-32GB:32GiB:80"
models=$(cd "$(dirname "$0")/../../../bench/data/models/synthetic" && pwd)
export IASHIM_COORDINATOR="ipc://$tmp/router"
fail() {
  echo "FAIL: $*" >&2
  echo "--- status" >&2; "$iashim" status --pairs 2>&1 >&2 || true
  echo "--- coordinator log" >&2; tail -n 40 "$tmp/coordinator.log" >&2
  exit 1
}
job() {  # NAME PRIORITY KIND GPU SECONDS: a fake job of KIND through `iashim run`, in the background
  "$iashim" run --simgpu --job "$1" --priority "$2" --kind "$3" --gpu "$4" --mem 4GiB -- \
    "$fakejob" --model "$models/$3.model" --seconds "$5" >"$tmp/$1.out" 2>"$tmp/$1.err" &
  pids+=($!)
  running+=($!)
}
wait_jobs() {
  for p in "${running[@]}"; do wait "$p" || fail "a job failed: $(cat "$tmp"/*.err | tail -n 5)"; done
  running=()
}
running=()

# --min-gain 0: place wherever sharing gains anything at all, so that the
# answer shows which GPU the model prefers (by default a job that gains this
# little next to a protected job is queued, which is right, but says less).
# --reservation-ttl-s 0: the dry runs below are separate questions about one
# state, not a burst of jobs on their way (each would hold its GPU otherwise).
start_coordinator --min-gain 0 --reservation-ttl-s 0 || fail "the coordinator did not answer"

# 1. Learning. 6 s alone: the solo baseline is stored under the kernel set's
# fingerprint once no new kernel has appeared for 3 s, at a control tick
# (every 1 s); a 4 s job under load ended before that tick (seen in CI, as in
# scripts/slurm-test.sh).
job solo-mem opportunistic membound 0 6
job solo-comp opportunistic computebound 1 6
wait_jobs
job solo-rows opportunistic rowreduce 0 6
wait_jobs
# 16 s a pair: a job's slowdown settles in a few seconds, and the coordinator
# records an observation of each shared GPU every 10 s.
job mm-a opportunistic membound 0 16
job mm-b opportunistic membound 0 16
job cc-a opportunistic computebound 1 16
job cc-b opportunistic computebound 1 16
wait_jobs
job mc-m0 opportunistic membound 0 16
job mc-c0 opportunistic computebound 0 16
job mc-m1 opportunistic membound 1 16
job mc-c1 opportunistic computebound 1 16
wait_jobs

# 2. Placement by what was learned.
job guar-mem guaranteed membound 0 8
job guar-comp guaranteed computebound 1 8
# Both must be in place before the question (a loaded machine starts them late).
for _ in $(seq 50); do
  [[ "$("$iashim" status --timeout-s 1 2>/dev/null | grep -c '^  guar-.* yes$')" == 2 ]] && break
  sleep 0.2
done
sleep 2  # a few telemetry windows, so each job's kernel mix is known
gpu_of() {  # KIND: the GPU a new opportunistic job of KIND would get
  "$iashim" place --dry-run --priority opportunistic --kind "$1" --mem 4GiB >"$tmp/place-$1.out" 2>&1 ||
    fail "iashim place for $1: $(cat "$tmp/place-$1.out")"
  sed -n 's/.*gpu[^0-9]*\([0-9]\).*/\1/p' "$tmp/place-$1.out" | head -n 1
}
mem_gpu=$(gpu_of membound)
comp_gpu=$(gpu_of computebound)
rows_gpu=$(gpu_of rowreduce)
echo "opportunistic memory-bound job -> GPU $mem_gpu:"; sed 's/^/    /' "$tmp/place-membound.out"
echo "opportunistic compute-bound job -> GPU $comp_gpu:"; sed 's/^/    /' "$tmp/place-computebound.out"
echo "opportunistic row-reduction job (never paired) -> GPU $rows_gpu:"; sed 's/^/    /' "$tmp/place-rowreduce.out"
"$iashim" status --pairs --timeout-s 1 | tee "$tmp/pairs.txt"
wait_jobs
[[ "$mem_gpu" == 1 ]] || fail "the memory-bound job would go to GPU $mem_gpu, next to its worst partner"
[[ "$comp_gpu" == 0 ]] || fail "the compute-bound job would go to GPU $comp_gpu, next to its worst partner"
[[ "$rows_gpu" == 1 ]] || fail "the never-paired memory-bound job would go to GPU $rows_gpu, next to the memory-bound job"
grep -q "membound *membound" "$tmp/pairs.txt" || fail "no learned memory-bound pair"
grep -q "membound *computebound" "$tmp/pairs.txt" || fail "no learned mixed pair"
echo "placement_learns_pairs_test: passed"
