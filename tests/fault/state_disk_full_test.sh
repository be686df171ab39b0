#!/usr/bin/env bash
# Fault 5: the coordinator's --state-dir is a tiny tmpfs that fills up. The
# coordinator keeps serving (placements, status, budgets to a throttled job)
# and says so once: one log line naming the directory and the error,
# iashim_state_errors_total and iashim_state_write_failing in /metrics, and
# state_error in `iashim status`. Killed and restarted while the disk is still
# full, it has every job persisted before the disk filled. When space returns
# it writes what it kept in memory (a job placed while full survives the next
# restart) and persists as before.
#
# The tmpfs is mounted in a private mount namespace: `unshare --mount` as
# root, `unshare --user --map-root-user --mount` otherwise. Where neither
# works, the test is skipped (exit 77).
#
#   state_disk_full_test.sh BUILD_DIR
set -euo pipefail
if [[ -z ${FAULT_IN_NAMESPACE:-} ]]; then
  if [[ $(id -u) == 0 ]]; then
    ns=(unshare --mount --propagation private)
  else
    ns=(unshare --user --map-root-user --mount --propagation private)
  fi
  if ! "${ns[@]}" sh -c 'mount -t tmpfs -o size=64k tmpfs /mnt 2>/dev/null || mount -t tmpfs -o size=64k tmpfs /tmp' \
    >/dev/null 2>&1; then
    echo "SKIP: cannot mount a tmpfs in a private mount namespace (${ns[*]})"
    exit 77
  fi
  FAULT_IN_NAMESPACE=1 exec "${ns[@]}" "$0" "$@"
fi
source "$(dirname "$0")/common.sh" "$1" state-full

mkdir -p "$state_dir"
mount -t tmpfs -o size=256k,mode=0700 iashim-fault-state "$state_dir"
on_exit 'umount -l "$state_dir"'
port=$(free_port)
coordinator_args=(--placement simple --metrics "127.0.0.1:$port")
start_coordinator "${coordinator_args[@]}"

place() { "$iashim" place --priority opportunistic --mem 64MiB --job "$1" >/dev/null || fail "placing $1 failed"; }
job_known() { [[ -n $(job_object "$(status_line)" "$1") ]]; }
state_metric() { metric "$(metrics "$port")" "$1"; }

# A guaranteed job with its baseline, and a throttled opportunistic one: budgets flow.
job_args=(--kernel-us 20000 --report-ms 250)
"$iashim" run --simgpu --priority guaranteed --job guard --mem 4GiB -- \
  "$fault_job" --seconds 45 --name guard_step "${job_args[@]}" >"$tmp/guard.out" 2>"$tmp/guard.err" &
track $!
guard_baseline() { [[ $(field "$(job_object "$(status_line)" guard)" baseline_iteration_ns) -gt 0 ]]; }
wait_for 15 guard_baseline || fail "the guaranteed job never got a solo baseline"
"$iashim" run --simgpu --priority opportunistic --job filler --mem 4GiB -- \
  "$fault_job" --seconds 45 --name filler_step "${job_args[@]}" >"$tmp/filler.out" 2>"$tmp/filler.err" &
track $!
throttled() { local s; s=$(last_value "$tmp/filler.out" share); [[ -n $s ]] && float_test "$s < 1"; }
wait_for 20 throttled || fail "the coordinator never throttled the opportunistic job"
for j in pre-1 pre-2 pre-3; do place "$j"; done

# Fill the disk.
dd if=/dev/zero of="$state_dir/ballast" bs=4k 2>/dev/null || true
echo "state dir full: $(df -k "$state_dir" | awk 'NR == 2 { print $3 " KiB used, " $4 " KiB free" }')"
seq_at_fill=$(last_value "$tmp/filler.out" seq)
# The journal's last page still takes small records: place jobs until one
# needs a new page. Those placed before it are on disk; that one is not.
failing() { [[ $(state_metric iashim_state_write_failing) == 1 ]]; }
placed=0
until failing; do
  ((placed < 60)) || fail "60 placements on a full disk and no write failed"
  placed=$((placed + 1))
  place "during-$placed"
done
echo "the state write for job during-$placed (the ${placed}th placed since the disk filled) failed"
job_known "during-$placed" || fail "a job placed while the disk was full is not in the status"
budgets_flow() { (($(last_value "$tmp/filler.out" seq) > seq_at_fill)); }
wait_for 5 budgets_flow || fail "no budget reached the throttled job while the disk was full"
# One more job record (as large as the one refused; a budget's small record
# may still fit the journal's last page, and a throttled job whose share holds
# writes no job record): every refused write is counted.
place "during-$((placed + 1))"
errors=$(state_metric iashim_state_errors_total)
((errors >= 2)) || fail "iashim_state_errors_total is $errors after failed writes"
state_error=$("$iashim" status --json | sed -n 's/.*"state_error": *"\(.*\)",*$/\1/p')
[[ $state_error == *"No space left on device"* ]] || fail "iashim status shows state_error=$state_error"
"$iashim" status | grep -q "state NOT SAVED" || fail "the status table does not say state is not saved"
lines=$(grep -c "cannot write state in $state_dir: .*No space left on device" "$coordinator_log" || true)
[[ $lines == 1 ]] || fail "$lines log lines about the full disk, not 1"
echo "while full: $errors failed state writes, one log line: $(grep "cannot write state" "$coordinator_log")"

# Killed and restarted while still full: every job persisted before is there.
kill -9 "$coordinator_pid"
wait "$coordinator_pid" 2>/dev/null || true
start_coordinator "${coordinator_args[@]}"
echo "restarted while full: $(grep 'state in ' "$coordinator_log" | tail -1)"
persisted=(guard filler pre-1 pre-2 pre-3)
for ((i = 1; i < placed; ++i)); do persisted+=("during-$i"); done
for j in "${persisted[@]}"; do job_known "$j" || fail "job $j, written before the disk filled, is lost"; done
job_known "during-$placed" && echo "(during-$placed, refused by the disk, survived too)" ||
  echo "during-$placed, refused by the disk, is gone after kill -9 (expected: it was only in memory)"
place during-2nd
wait_for 5 failing || fail "/metrics does not say the restarted coordinator's state dir is failing"

# Space returns: what was kept in memory is written, and writing goes on.
rm -f "$state_dir/ballast"
freed_at=$EPOCHREALTIME
recovered() { grep -q "state in $state_dir is written again" "$coordinator_log"; }
wait_for 5 recovered || fail "no log line says the state is written again"
caught_up_s=$(awk -v a="$freed_at" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
[[ $(state_metric iashim_state_write_failing) == 0 ]] || fail "/metrics still says the state dir is failing"
[[ $(field "$(status_line)" state_error) == '""' ]] || fail "iashim status still shows a state error"
place after-free
kill -9 "$coordinator_pid"
wait "$coordinator_pid" 2>/dev/null || true
start_coordinator "${coordinator_args[@]}"
echo "restarted after space returned: $(grep 'state in ' "$coordinator_log" | tail -1)"
for j in "${persisted[@]}" during-2nd after-free; do
  job_known "$j" || fail "job $j lost after space returned and a restart"
done
echo "written again within ${caught_up_s} s of space returning; during-2nd (placed while full) and after-free survived a kill -9"
echo "state_disk_full_test: passed"
