#!/usr/bin/env bash
# Fault 1: the coordinator is killed with SIGKILL mid-run (a guaranteed and a
# throttled opportunistic job sharing the GPU, a baseline and an interference
# observation learned), stays down 4 s, and is restarted on the same
# --state-dir. Nothing is lost: the same jobs with the same priorities, pids,
# placement, targets and quotas in `iashim status --json`, the guaranteed job's
# solo baseline, the learned observations (/metrics) and the budget sequence
# (never below what the shim last applied; budgets after the restart apply).
# The jobs never paused: both kept making progress while it was down, the
# guaranteed job at its usual speed (the shim is fail-open).
#
#   coordinator_kill_test.sh BUILD_DIR
source "$(dirname "$0")/common.sh" "$1" coord-kill

port=$(free_port)
start_coordinator --metrics "127.0.0.1:$port"
job_args=(--kernel-us 20000 --report-ms 250)
"$iashim" run --simgpu --priority guaranteed --job guard --kind fault-guard --mem 4GiB -- \
  "$fault_job" --seconds 32 --name guard_step "${job_args[@]}" >"$tmp/guard.out" 2>"$tmp/guard.err" &
guard_pid=$!
track "$guard_pid"
guard_baseline() { [[ $(field "$(job_object "$(status_line)" guard)" baseline_iteration_ns) -gt 0 ]]; }
wait_for 15 guard_baseline || fail "the guaranteed job never got a solo baseline"
sleep 4  # its kernel set is stable after 3 s: the baseline is stored under its fingerprint
"$iashim" run --simgpu --priority opportunistic --job filler --kind fault-filler --mem 4GiB -- \
  "$fault_job" --seconds 28 --name filler_step "${job_args[@]}" >"$tmp/filler.out" 2>"$tmp/filler.err" &
filler_pid=$!
track "$filler_pid"

throttled_and_learned() {
  local share observations
  share=$(last_value "$tmp/filler.out" share)
  observations=$(metric "$(metrics "$port")" 'iashim_state_records{kind="observations"}')
  [[ -n $share && -n $observations ]] && float_test "$share < 1 && $observations >= 1"
}
wait_for 25 throttled_and_learned || fail "no throttled filler and learned observation before the kill"
sleep 0.5
before=$(status_line)
metrics_before=$(metrics "$port")
observations_before=$(metric "$metrics_before" 'iashim_state_records{kind="observations"}')
learned_before=$(metric "$metrics_before" iashim_interference_observations_total)
budget_seq_before=$(metric "$metrics_before" iashim_state_budget_seq)
seq_before=$(last_value "$tmp/filler.out" seq)
share_before=$(last_value "$tmp/filler.out" share)
guard_at_kill=$(last_value "$tmp/guard.out" iterations)
filler_at_kill=$(last_value "$tmp/filler.out" iterations)
kill -9 "$coordinator_pid"
killed_at=$EPOCHREALTIME
wait "$coordinator_pid" 2>/dev/null || true
sleep 4
guard_at_restart=$(last_value "$tmp/guard.out" iterations)
filler_at_restart=$(last_value "$tmp/filler.out" iterations)
outage_s=$(awk -v a="$killed_at" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
start_coordinator --metrics "127.0.0.1:$port"
answered_at=$EPOCHREALTIME
both_connected() { [[ $(connected_jobs) == 2 ]]; }
wait_for 5 both_connected || fail "the jobs did not reconnect within 5 s of the restart"
echo "both jobs reconnected $(awk -v a="$answered_at" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }') s" \
  "after the restarted coordinator answered"

restored=$(grep 'state in ' "$coordinator_log" | tail -1)
echo "restart: $restored"
read -r jobs_n baselines_n observations_n budget_seq < <(
  sed -n 's/.*: \([0-9]*\) jobs, \([0-9]*\) baselines, \([0-9]*\) observations, budget seq \([0-9]*\)$/\1 \2 \3 \4/p' \
    <<<"$restored")
[[ ${jobs_n:-} == 2 ]] || fail "the restarted coordinator restored ${jobs_n:-no} jobs, not 2"
((baselines_n >= 1)) || fail "the guaranteed job's baseline was not restored"
((observations_n >= observations_before)) ||
  fail "$observations_before observations before the kill, $observations_n restored"
float_test "$budget_seq >= $budget_seq_before && $budget_seq >= $seq_before" ||
  fail "budget seq restored as $budget_seq; it was $budget_seq_before, and the shim applied $seq_before"
learned_after=$(metric "$(metrics "$port")" iashim_interference_observations_total)
((learned_after >= learned_before)) ||
  fail "the interference model learned $learned_before observations before the kill, $learned_after after"

# A budget from the restarted coordinator is applied (its seq is higher).
new_budget() { (($(last_value "$tmp/filler.out" seq) > seq_before)); }
wait_for 10 new_budget || fail "no budget from the restarted coordinator reached the filler"
sleep 4  # the guaranteed job's kernel set is stable again: its baseline is seeded from the store
after=$(status_line)
for job in guard filler; do
  b=$(job_object "$before" "$job")
  a=$(job_object "$after" "$job")
  [[ -n $a ]] || fail "job $job lost in the restart"
  for f in priority pid host command slowdown_target mem_limit_bytes connected; do
    [[ $(field "$b" "$f") == "$(field "$a" "$f")" ]] ||
      fail "job $job: $f was $(field "$b" "$f") before the kill, $(field "$a" "$f") after"
  done
done
placement() { grep -o '"id":[-0-9]*\|"job":"[^"]*"' <<<"$1" | tr '\n' ' '; }
[[ $(placement "$before") == "$(placement "$after")" ]] ||
  fail "placement changed: $(placement "$before") -> $(placement "$after")"
base_before=$(field "$(job_object "$before" guard)" baseline_iteration_ns)
base_after=$(field "$(job_object "$after" guard)" baseline_iteration_ns)
float_test "$base_after > 0.95 * $base_before && $base_after < 1.05 * $base_before" ||
  fail "guard's solo baseline was ${base_before} ns, ${base_after} ns after the restart"

# Progress while the coordinator was down, and the guaranteed job's speed
# then against before (iterations per second from its 250 ms reports).
wait "$guard_pid" || fail "the guaranteed job failed: $(cat "$tmp/guard.err")"
wait "$filler_pid" || fail "the filler failed: $(cat "$tmp/filler.err")"
guard_outage=$((guard_at_restart - guard_at_kill))
filler_outage=$((filler_at_restart - filler_at_kill))
echo "coordinator down ${outage_s} s: guard +$guard_outage iterations, filler +$filler_outage" \
  "(share $share_before) meanwhile"
((guard_outage > 0 && filler_outage > 0)) || fail "a job made no progress while the coordinator was down"
rate() {  # iterations per second in $1 between iteration counts $2 and $3
  awk -v lo="$2" -v hi="$3" '/"t":/ { t = $2; n = $4; gsub(/[^0-9.]/, "", t); gsub(/[^0-9]/, "", n)
      t += 0; n += 0
      if (n >= lo && !a) { t0 = t; n0 = n; a = 1 }
      if (n <= hi) { t1 = t; n1 = n } }
    END { if (t1 > t0) printf "%.1f", (n1 - n0) / (t1 - t0); else print 0 }' "$1"
}
guard_before_rate=$(rate "$tmp/guard.out" $((guard_at_kill - 2 * (guard_outage + 1))) "$guard_at_kill")
guard_outage_rate=$(rate "$tmp/guard.out" "$guard_at_kill" "$guard_at_restart")
echo "guard iterations/s (simulated): $guard_before_rate before the kill, $guard_outage_rate while down"
float_test "$guard_outage_rate >= 0.8 * $guard_before_rate" ||
  fail "the guaranteed job slowed down while the coordinator was down"
echo "coordinator_kill_test: passed"
