#!/usr/bin/env bash
# A data-parallel gang end to end: `iashim run --gpus 2` places a 2-rank
# iashim-fakejob on two GPUs of the node, its rank processes register as one
# job, each on the GPU of its rank, and `iashim status` shows one job with its
# GPUs and both ranks' rates; a gang larger than what is left waits, and one
# larger than the node is refused; one process driving two GPUs shows as a
# rank per GPU.
#
#   gang_test.sh BUILD_DIR
set -euo pipefail
# shellcheck source=simgpu_session.sh
source "$(dirname "$0")/simgpu_session.sh" "$1" gang "4xTesla V100-SXM2-32GB:32GiB:80"
export IASHIM_COORDINATOR="ipc://$tmp/router"
fail() { echo "FAIL: $*" >&2; echo "--- coordinator log" >&2; cat "$tmp/coordinator.log" >&2; exit 1; }

start_coordinator || fail "the coordinator did not answer"
# A one-GPU job first, so the gang's GPUs are not simply 0 and 1.
"$iashim" run --simgpu --job single -- "$fakejob" --model lstm --seconds 20 \
  >"$tmp/single.out" 2>&1 &
pids+=($!)
"$iashim" run --simgpu --gpus 2 --job ddp -- \
  "$fakejob" --model resnet50 --ranks 2 --seconds 20 >"$tmp/ddp.out" 2>&1 &
ddp_pid=$!
pids+=("$ddp_pid")

# Both ranks connected and measured: one job, two GPUs, two ranks with rates.
status=""
for _ in $(seq 150); do
  status=$("$iashim" status --json --timeout-s 0.5 2>/dev/null | tr -d ' \n' || true)
  ranks=$(grep -o '"ranks":\[[^]]*\]' <<<"$status" || true)
  if [[ $(grep -o '"iteration_ns":[1-9]' <<<"$ranks" | wc -l) == 2 ]]; then break; fi
  sleep 0.1
done
[[ $(grep -o '"iteration_ns":[1-9]' <<<"$ranks" | wc -l) == 2 ]] ||
  fail "the gang's two ranks never both reported: $status"
gpus=$(grep -o '"job":"ddp"[^]]*"gpus":\[[0-9,]*\]' <<<"$status" | grep -o '"gpus":\[[0-9,]*\]' || true)
[[ $gpus =~ ^\"gpus\":\[([0-9]),([0-9])\]$ ]] || fail "the gang's GPUs are not listed: $status"
g0=${BASH_REMATCH[1]}
g1=${BASH_REMATCH[2]}
# The GPU whose entry ({"id":N,...,"jobs":[...]}) lists the single job.
single_gpu=$(sed 's/{"id":/\n&/g' <<<"$status" | grep '"job":"single"' | grep -o '^{"id":[0-9]*' |
  cut -d: -f2 || true)
[[ -n $single_gpu ]] || fail "the single job is on no GPU: $status"
[[ $g0 != "$g1" && $g0 != "$single_gpu" && $g1 != "$single_gpu" ]] ||
  fail "the gang's GPUs $g0,$g1 overlap each other or the single job's $single_gpu"
# Each rank runs on its own GPU of the gang, in rank order.
for r in 0 1; do
  gpu=$([[ $r == 0 ]] && echo "$g0" || echo "$g1")
  grep -q "\"rank\":$r,[^}]*\"gpu\":$gpu" <<<"$ranks" || fail "rank $r is not on GPU $gpu: $ranks"
done
# The memory of rank 1, listed under GPU g0 with its gang, counts on its own GPU.
used=$(grep -o "{\"id\":$g1,[^]]*\"memory_used_bytes\":[0-9]*" <<<"$status" |
  grep -o '"memory_used_bytes":[0-9]*' | cut -d: -f2 || true)
[[ -n $used && $used -gt 0 ]] || fail "GPU $g1 (the gang's rank 1) shows no memory used: $status"
echo "gang ddp on GPUs $g0,$g1 (single job on $single_gpu), both ranks reporting"
"$iashim" status | sed -n '/ddp/,+3p'

# One GPU is left: a gang of 2 waits, a gang of 5 can never be placed.
wait_out=$("$iashim" place --gpus 2 --dry-run 2>&1 || true)
grep -qi "queue\|wait" <<<"$wait_out" || fail "a gang of 2 with one GPU left was not queued: $wait_out"
never=$("$iashim" place --gpus 5 --dry-run 2>&1 || true)
grep -qi "no node\|has that many\|refused" <<<"$never" ||
  fail "a gang of 5 on a 4-GPU node was not refused: $never"
echo "gang of 2 with one GPU free: $wait_out"
echo "gang of 5: $never"

# One process driving both GPUs of a gang (fakejob --devices 2): its telemetry
# says which device each kernel ran on, so each GPU is a rank of its own, of
# the same pid, each with its own rate. The 2-rank gang goes first.
kill -TERM "$ddp_pid" 2>/dev/null || true
for _ in $(seq 150); do
  "$iashim" status --json --timeout-s 0.5 2>/dev/null | tr -d ' \n' | grep -q '"job":"ddp"' || break
  sleep 0.1
done
"$iashim" status --json --timeout-s 0.5 2>/dev/null | tr -d ' \n' | grep -q '"job":"ddp"' &&
  fail "the 2-rank gang was not released after SIGTERM"
"$iashim" run --simgpu --gpus 2 --job tp -- \
  "$fakejob" --model resnet18 --devices 2 --seconds 20 >"$tmp/tp.out" 2>&1 &
pids+=($!)
tp_ranks=""
for _ in $(seq 150); do
  status=$("$iashim" status --json --timeout-s 0.5 2>/dev/null | tr -d ' \n' || true)
  tp_ranks=$(grep -o '"job":"tp".*' <<<"$status" | grep -o '"ranks":\[[^]]*\]' | head -1 || true)
  if [[ $(grep -o '"iteration_ns":[1-9]' <<<"$tp_ranks" | wc -l) == 2 ]]; then break; fi
  sleep 0.1
done
[[ $(grep -o '"iteration_ns":[1-9]' <<<"$tp_ranks" | wc -l) == 2 ]] ||
  fail "the one-process gang's two GPUs never both reported: $status"
[[ $(grep -o '"pid":[0-9]*' <<<"$tp_ranks" | sort -u | wc -l) == 1 ]] ||
  fail "the one-process gang's ranks are not one process: $tp_ranks"
[[ $(grep -o '"gpu":[0-9]*' <<<"$tp_ranks" | sort -u | wc -l) == 2 ]] ||
  fail "the one-process gang's ranks are not on two GPUs: $tp_ranks"
echo "one process driving two GPUs: $tp_ranks"
