#!/usr/bin/env bash
# First use, as the README's "Running jobs under the coordinator" block does
# it: a fresh coordinator (no saved baseline), a guaranteed and an
# opportunistic job started together. The guaranteed job never runs alone, so
# the coordinator must probe it (hold the other job for a second or two) to get
# a baseline, and then throttle the opportunistic job. Also: a job whose
# command cannot start is released at once, not left holding the GPU.
# Behaviour only; bounded waits.
#
#   first_use_test.sh BUILD_DIR
set -euo pipefail
# shellcheck source=simgpu_session.sh
source "$(dirname "$0")/simgpu_session.sh" "$1" firstuse
export IASHIM_COORDINATOR="ipc://$tmp/router"
fail() {
  echo "FAIL: $*" >&2
  echo "--- status" >&2; "$iashim" status 2>&1 >&2 || true
  echo "--- coordinator log" >&2; cat "$tmp/coordinator.log" >&2
  exit 1
}

# job_fields JOB FIELD...: those fields of one job in `iashim status --json`,
# one line, space-separated ("-" for null; nothing if the job is not listed).
job_fields() {
  "$iashim" status --json --timeout-s 1 2>/dev/null | python3 -c '
import json, sys
job, fields = sys.argv[1], sys.argv[2:]
for g in json.load(sys.stdin)["gpus"]:
    for j in g["jobs"]:
        if j["job"] == job:
            print(" ".join("-" if j[f] is None else str(j[f]) for f in fields))
' "$@" || true
}
job_count() {
  "$iashim" status --json --timeout-s 1 2>/dev/null |
    python3 -c 'import json, sys; print(sum(len(g["jobs"]) for g in json.load(sys.stdin)["gpus"]))'
}

start_coordinator || fail "the coordinator did not answer"

# A command that cannot start: released at once, not a ghost for 60 s.
rc=0
"$iashim" run --simgpu --priority guaranteed --mem 4GiB -- /no/such/program \
  >"$tmp/ghost.out" 2>"$tmp/ghost.err" || rc=$?
[[ $rc == 127 ]] || fail "iashim run of a missing program exited $rc, not 127"
grep -q "released job" "$tmp/ghost.err" || fail "no release reported: $(cat "$tmp/ghost.err")"
[[ $(job_count) == 0 ]] || fail "the job that never started is still registered"

# The two jobs, together, as a new user starts them (the README's block).
"$iashim" run --simgpu --priority guaranteed --mem 10GiB --job guar -- \
  "$fakejob" --model resnet50 --seconds 40 >"$tmp/guar.out" 2>"$tmp/guar.err" &
pids+=($!)
"$iashim" run --simgpu --priority opportunistic --mem 10GiB --job opp -- \
  "$fakejob" --model resnet50 --seconds 40 >"$tmp/opp.out" 2>"$tmp/opp.err" &
pids+=($!)

# The probe: warm-up (2 s), hold, settle, measure, release: well within 25 s
# even on a loaded machine (each poll takes at least 0.2 s).
state=""
for _ in $(seq 125); do
  state=$(job_fields guar baseline_source probing)
  [[ "$state" == "probe False" ]] && break
  sleep 0.2
done
[[ "$state" == "probe False" ]] ||
  fail "the guaranteed job's baseline source and probing are '$state', not 'probe False'"
echo "guaranteed job: baseline from a probe"

# Then the control loop has a slowdown to act on: the opportunistic job is
# throttled: a share below 1, above the probe's hold (1%; a window may still
# report it just after the release) and at least the control loop's 5% floor.
throttled() { awk -v s="$1" 'BEGIN { exit !(s != "" && s > 0.04 && s < 0.99) }'; }
share=""
for _ in $(seq 125); do
  share=$(job_fields opp share)
  throttled "$share" && break
  sleep 0.2
done
throttled "$share" || fail "the opportunistic job's share stayed at '$share'"
[[ $(job_fields guar probing) == False ]] || fail "a probe holds the GPU again"
echo "opportunistic job: share $share"
echo PASS
