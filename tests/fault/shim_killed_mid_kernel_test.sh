#!/usr/bin/env bash
# Fault 3: a process under the shim is SIGKILLed in the middle of a 2 s kernel.
# Its simulated device memory and its process slot are freed (NVML stops
# listing it), even while its parent has not reaped it (a zombie); the other
# job on the same GPU keeps running and finishes successfully, at full speed
# once the dead process's queued work is gone; the coordinator marks the job
# disconnected, then forgets it.
#
#   shim_killed_mid_kernel_test.sh BUILD_DIR
source "$(dirname "$0")/common.sh" "$1" shim-kill

# Simple placement: both jobs on the one GPU, whatever the model predicts.
start_coordinator --placement simple --heartbeat-timeout-s 2 --forget-after-s 3
"$iashim" run --simgpu --priority guaranteed --job survivor --mem 2GiB -- \
  "$fault_job" --seconds 14 --kernel-us 20000 --alloc-mib 1024 --report-ms 250 \
  >"$tmp/survivor.out" 2>"$tmp/survivor.err" &
survivor_pid=$!
track "$survivor_pid"
# The victim's parent never reaps it (a launcher busy elsewhere), so once
# killed it stays a zombie until the test ends.
sh -c '"$1" run --simgpu --priority opportunistic --job victim --mem 4GiB -- "$2" --seconds 60 --kernel-us 2000000 \
         --alloc-mib 3072 >"$3" 2>"$4" & echo $! >"$5"; exec sleep 120' \
  sh "$iashim" "$fault_job" "$tmp/victim.out" "$tmp/victim.err" "$tmp/victim.pid" &
track $!
wait_for 10 test -s "$tmp/victim.pid" || fail "the victim was not started"
victim_pid=$(cat "$tmp/victim.pid")
track "$victim_pid"

victim_launched() { grep -q '"launched"' "$tmp/victim.out"; }
wait_for 20 victim_launched || fail "the victim never launched a kernel: $(cat "$tmp/victim.err")"
both_connected() { [[ $(connected_jobs) == 2 ]]; }
wait_for 20 both_connected || fail "the two jobs never both connected"

before=$("$nvml_probe") || fail "NVML probe failed"
echo "before the kill: $before"
grep -q "{\"pid\": $victim_pid, \"mem\": 3221225472}" <<<"$before" ||
  fail "NVML does not show the victim (pid $victim_pid) holding 3 GiB"
[[ $(field "$before" mem_used) == 4294967296 ]] || fail "device memory in use is not 4 GiB"

sleep 1  # the victim is inside its first 2 s kernel (launched ~1 s after its start)
kill -9 "$victim_pid"
killed_at=$EPOCHREALTIME
iterations_at_kill=$(last_value "$tmp/survivor.out" iterations)

victim_gone() { ! grep -q "\"pid\": $victim_pid," <<<"$("$nvml_probe")"; }
wait_for 5 victim_gone || fail "the victim's slot was still on the device 5 s after SIGKILL"
freed_at=$EPOCHREALTIME
after=$("$nvml_probe")
echo "after the kill:  $after"
state=$(awk '{ sub(/.*\) /, ""); print substr($0, 1, 1) }' "/proc/$victim_pid/stat" 2>/dev/null || echo gone)
echo "victim process state while its slot was freed: $state (Z = zombie, not yet reaped)"
[[ $(field "$after" mem_used) == 1073741824 ]] ||
  fail "device memory in use is $(field "$after" mem_used), not the survivor's 1 GiB"
grep -q "{\"pid\": $survivor_pid, \"mem\": 1073741824}" <<<"$after" || fail "the survivor is no longer listed"

job_connected() { [[ $(field "$(job_object "$(status_line)" victim)" connected) == "$1" ]]; }
wait_for 10 job_connected false || fail "the coordinator did not mark the victim disconnected"
disconnected_at=$EPOCHREALTIME
victim_forgotten() { local s; s=$(status_line); [[ -n $s && -z $(job_object "$s" victim) ]]; }
wait_for 15 victim_forgotten || fail "the coordinator did not forget the victim"
forgotten_at=$EPOCHREALTIME
[[ $(field "$(job_object "$(status_line)" survivor)" connected) == true ]] ||
  fail "the survivor is no longer connected"

wait "$survivor_pid" || fail "the survivor failed: $(cat "$tmp/survivor.err")"
grep -q '"summary": true' "$tmp/survivor.out" || fail "the survivor did not finish"
# Survivor's iterations per second: while the victim's kernels ran beside it,
# and from 1 s after the kill to its end.
rates=$(awk -v kill="$iterations_at_kill" '
  /"t":/ { t = $2 + 0; n = $4 + 0; gsub(/[^0-9.]/, "", t); gsub(/[^0-9]/, "", n)
           pts[++k] = t " " n }
  END { for (i = 1; i <= k; ++i) print pts[i] }' "$tmp/survivor.out")
kill_t=$(awk -v n="$iterations_at_kill" '$2 >= n { print $1; exit }' <<<"$rates")
read -r shared_rate solo_rate < <(awk -v k="$kill_t" '
  $1 >= k - 1.5 && !b { t0 = $1; n0 = $2; b = 1 }
  $1 <= k { tk = $1; nk = $2 }
  $1 >= k + 1 && !s { ts = $1; ns = $2; s = 1 }
  { te = $1; ne = $2 }
  END { printf "%.1f %.1f\n", (nk - n0) / (tk - t0), (ne - ns) / (te - ts) }' <<<"$rates")
printf 'slot and memory freed %.2f s after SIGKILL; job disconnected after %.2f s, forgotten after %.2f s\n' \
  "$(awk -v a="$killed_at" -v b="$freed_at" 'BEGIN { print b - a }')" \
  "$(awk -v a="$killed_at" -v b="$disconnected_at" 'BEGIN { print b - a }')" \
  "$(awk -v a="$killed_at" -v b="$forgotten_at" 'BEGIN { print b - a }')"
echo "survivor iterations/s: $shared_rate beside the victim, $solo_rate after the kill (simulated)"
float_test "$solo_rate > 1.2 * $shared_rate" ||
  fail "the survivor did not speed up once the victim died: its queued work still runs"
echo "shim_killed_mid_kernel_test: passed"
