#!/usr/bin/env bash
# Fault 4: 200 processes start at once under the shim (LD_PRELOAD libiashim.so)
# on one simulated GPU, with a coordinator running. Each launches three tiny
# kernels. All 200 must succeed and register with the coordinator (200
# connected jobs at once), then leave (Goodbye: no job left). Prints the time
# to first kernel (process start -> first cuLaunchKernel returned): p50, p99, max.
#
#   many_processes_test.sh BUILD_DIR [COUNT]
source "$(dirname "$0")/common.sh" "$1" burst
count=${2:-200}
shim=$build/libiashim/libiashim.so

start_coordinator
mkdir -p "$tmp/out"
started=$EPOCHREALTIME
burst=()
for ((i = 1; i <= count; ++i)); do
  FAULT_START_US=$EPOCHREALTIME IASHIM_JOB="burst-$i" LD_PRELOAD="$shim" \
    "$fault_job" --kernels 3 --kernel-us 100 --wait-for "$tmp/go" --wait-timeout-s 100 \
    >"$tmp/out/$i.out" 2>"$tmp/out/$i.err" &
  burst+=($!)
done
track "${burst[@]}"
spawned=$EPOCHREALTIME

# Indices of the processes that have not launched a kernel (yet).
not_launched() { grep -L '"launched"' "$tmp"/out/*.out | sed 's|.*/||; s|\.out$||'; }
# Every process launched a kernel or exited.
settled() {
  local i
  for i in $(not_launched); do kill -0 "${burst[$((i - 1))]}" 2>/dev/null && return 1; done
  return 0
}
wait_for 90 settled || fail "$(not_launched | wc -l) processes neither launched a kernel nor exited in 90 s"
missing=$(not_launched | wc -l)
((missing == 0)) || fail "$missing of $count processes did not launch a kernel; the first said:" \
  "$(cat "$tmp/out/$(not_launched | head -1).err")"
launched=$EPOCHREALTIME
all_registered() { [[ $(connected_jobs) == "$count" ]]; }
wait_for 60 all_registered || fail "only $(connected_jobs) of $count processes registered"
registered=$EPOCHREALTIME
touch "$tmp/go"
failed=0
for i in "${!burst[@]}"; do
  if ! wait "${burst[$i]}"; then
    failed=$((failed + 1))
    ((failed > 3)) || echo "process $((i + 1)) failed: $(cat "$tmp/out/$((i + 1)).err")" >&2
  fi
done
((failed == 0)) || fail "$failed of $count processes failed"
done_count=$(grep -l '"summary": true' "$tmp"/out/*.out | wc -l)
[[ $done_count == "$count" ]] || fail "only $done_count of $count processes finished their kernels"
no_jobs_left() { local s; s=$(status_line); [[ -n $s && $s != *'"job":'* ]]; }
wait_for 30 no_jobs_left || fail "jobs were left registered after every process said goodbye"

sorted=$(cat "$tmp"/out/*.out | sed -n 's/.*"first_kernel_ms": \([0-9.]*\).*/\1/p' | sort -n)
[[ $(wc -l <<<"$sorted") == "$count" ]] || fail "not every process reported its time to first kernel"
pick() { awk -v q="$1" '{ v[NR] = $1 } END { i = int(q * NR + 0.999999); if (i < 1) i = 1; print v[i] }' <<<"$sorted"; }
span() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
echo "$count processes: spawned in $(span "$started" "$spawned") s, all launched a kernel after" \
  "$(span "$started" "$launched") s, all registered after $(span "$started" "$registered") s"
echo "time to first kernel (ms): p50 $(pick 0.50)  p99 $(pick 0.99)  max $(pick 1.0)"
echo "many_processes_test: passed"
