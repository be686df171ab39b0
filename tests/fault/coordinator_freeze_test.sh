#!/usr/bin/env bash
# Fault 2: the coordinator is frozen (SIGSTOP) for 10 s while it throttles an
# opportunistic job next to a guaranteed one. Budgets carry a 3 s TTL
# (--budget-ttl-s 3), so the throttled job's shim must drop back to share 1.0
# within the TTL of the last budget it got; both jobs keep making progress
# through the freeze. After SIGCONT the coordinator recovers: both jobs are
# connected, new budgets reach the shim and the job is throttled again.
#
#   coordinator_freeze_test.sh BUILD_DIR
source "$(dirname "$0")/common.sh" "$1" coord-freeze

ttl_s=3
start_coordinator --budget-ttl-s "$ttl_s"
job_args=(--kernel-us 20000 --report-ms 100)
"$iashim" run --simgpu --priority guaranteed --job guard --mem 4GiB -- \
  "$fault_job" --seconds 40 --name guard_step "${job_args[@]}" >"$tmp/guard.out" 2>"$tmp/guard.err" &
guard_pid=$!
track "$guard_pid"
guard_baseline() { [[ $(field "$(job_object "$(status_line)" guard)" baseline_iteration_ns) -gt 0 ]]; }
wait_for 15 guard_baseline || fail "the guaranteed job never got a solo baseline"
"$iashim" run --simgpu --priority opportunistic --job filler --mem 4GiB -- \
  "$fault_job" --seconds 36 --name filler_step "${job_args[@]}" >"$tmp/filler.out" 2>"$tmp/filler.err" &
filler_pid=$!
track "$filler_pid"
# Throttled, by a budget sent within the last refresh period (sequence
# numbers are the wall clock in microseconds when sent).
throttled_now() {
  local share seq
  share=$(last_value "$tmp/filler.out" share)
  seq=$(last_value "$tmp/filler.out" seq)
  [[ -n $share ]] && float_test "$share < 1 && $EPOCHREALTIME - $seq / 1e6 < 1.2"
}
wait_for 20 throttled_now || fail "the coordinator never throttled the opportunistic job"
sleep 1
wait_for 10 throttled_now || fail "the opportunistic job is no longer throttled"
seq_before=$(last_value "$tmp/filler.out" seq)
share_before=$(last_value "$tmp/filler.out" share)
guard_at_stop=$(last_value "$tmp/guard.out" iterations)
filler_at_stop=$(last_value "$tmp/filler.out" iterations)

kill -STOP "$coordinator_pid"
stopped_at=$EPOCHREALTIME
unthrottled() { float_test "$(last_value "$tmp/filler.out" share) >= 1"; }
wait_for 9 unthrottled || fail "the filler's budget did not expire while the coordinator was frozen"
unthrottled_at=$EPOCHREALTIME
unthrottled_s=$(awk -v a="$stopped_at" -v b="$unthrottled_at" 'BEGIN { printf "%.2f", b - a }')
# A budget's sequence number is the wall clock in microseconds when it was
# sent: the last one must have expired after its TTL, not before, and soon
# after (the progress lines come every 100 ms). Both ends come from the job's
# own first report with share 1 after the stop: its "seq" is the last budget
# it got (one may have arrived after seq_before was read, just before the
# stop) and its "unix" the wall clock then (this script may look late).
read -r last_seq expired_at < <(awk -v from="$stopped_at" '
  function field(line, key,   v) { v = line; sub(".*\"" key "\": ", "", v); sub(/[,}].*/, "", v); return v }
  /"seq":/ && field($0, "unix") + 0 >= from && field($0, "share") + 0 >= 1 {
    print field($0, "seq"), field($0, "unix"); exit }' "$tmp/filler.out")
[[ -n "$expired_at" ]] || fail "no report of the filler shows its last budget expiring"
((last_seq >= seq_before)) || fail "the filler's budget went back from seq $seq_before to $last_seq"
budget_age_s=$(awk -v seq="$last_seq" -v b="$expired_at" 'BEGIN { printf "%.2f", b - seq / 1e6 }')
float_test "$budget_age_s >= $ttl_s - 0.1 && $budget_age_s <= $ttl_s + 1" ||
  fail "the filler's last budget (TTL ${ttl_s} s) was seen expired ${budget_age_s} s after it was sent"
seq_frozen=$(last_value "$tmp/filler.out" seq)
((seq_frozen == last_seq)) || fail "the filler got a budget from a frozen coordinator"
sleep "$(awk -v a="$stopped_at" -v b="$EPOCHREALTIME" 'BEGIN { r = 10 - (b - a); print (r > 0 ? r : 0) }')"
guard_at_cont=$(last_value "$tmp/guard.out" iterations)
filler_at_cont=$(last_value "$tmp/filler.out" iterations)
kill -CONT "$coordinator_pid"
continued_at=$EPOCHREALTIME
frozen_s=$(awk -v a="$stopped_at" -v b="$continued_at" 'BEGIN { printf "%.2f", b - a }')

both_connected() { [[ $(connected_jobs) == 2 ]]; }
wait_for 5 both_connected || fail "the jobs were not connected within 5 s of SIGCONT"
rethrottled() {
  (($(last_value "$tmp/filler.out" seq) > last_seq)) && float_test "$(last_value "$tmp/filler.out" share) < 1"
}
wait_for 10 rethrottled || fail "the coordinator did not throttle the filler again after SIGCONT"
rethrottled_s=$(awk -v a="$continued_at" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
kill -0 "$coordinator_pid" 2>/dev/null || fail "the coordinator died"

guard_frozen=$((guard_at_cont - guard_at_stop))
filler_frozen=$((filler_at_cont - filler_at_stop))
echo "coordinator frozen ${frozen_s} s: guard +$guard_frozen iterations, filler +$filler_frozen"
echo "filler share $share_before before the freeze; unthrottled (share 1.0) ${unthrottled_s} s into it," \
  "${budget_age_s} s after its last budget was sent (TTL ${ttl_s} s); throttled again (share $(last_value "$tmp/filler.out" share))" \
  "${rethrottled_s} s after SIGCONT"
((guard_frozen > 0 && filler_frozen > 0)) || fail "a job made no progress while the coordinator was frozen"
kill "$guard_pid" "$filler_pid" 2>/dev/null || true
echo "coordinator_freeze_test: passed"
