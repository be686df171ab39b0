#!/usr/bin/env bash
# CurveZMQ end to end with real processes (coordinator/security/README.md):
# `iashim keygen`; a coordinator that refuses tcp://0.0.0.0 without a key and
# serves it with one; a shim with the coordinator's key registers and gets
# budgets, a shim without it or with a wrong key never registers and its job
# still runs; `iashim status` with and without the key; admin write actions
# with and without the admin key; tools refusing plain text beyond loopback.
#
#   curve_test.sh BUILD_DIR
set -euo pipefail
# shellcheck source=simgpu_session.sh
source "$(dirname "$0")/simgpu_session.sh" "$1" curve "Tesla V100-SXM2-32GB:32GiB:80,Tesla V100-SXM2-32GB:32GiB:80,Tesla V100-SXM2-32GB:32GiB:80,Tesla V100-SXM2-32GB:32GiB:80"
unset IASHIM_COORDINATOR IASHIM_COORDINATOR_KEY
fail() { echo "FAIL: $*" >&2; echo "--- coordinator log" >&2; cat "$tmp/coordinator.log" >&2 || true; exit 1; }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# --- keygen: both pairs, private modes, no silent overwrite.
keys=$tmp/keys
"$iashim" keygen --dir "$keys" >"$tmp/keygen.out" || fail "keygen failed"
"$iashim" keygen --dir "$keys" --admin >>"$tmp/keygen.out" || fail "keygen --admin failed"
grep -q "coordinator.key_secret" "$tmp/keygen.out" || fail "keygen did not say where it wrote"
for f in coordinator.key_secret admin.key_secret; do
  [[ $(stat -c %a "$keys/$f") == 600 ]] || fail "$f has mode $(stat -c %a "$keys/$f")"
done
[[ $(stat -c %a "$keys") == 700 ]] || fail "the key directory has mode $(stat -c %a "$keys")"
[[ $(wc -c <"$keys/coordinator.key") == 41 ]] || fail "coordinator.key is not 40 characters and a newline"
if "$iashim" keygen --dir "$keys" 2>"$tmp/again.err"; then fail "keygen overwrote a key pair"; fi
grep -q "already exists (pass --force" "$tmp/again.err" || fail "keygen: $(cat "$tmp/again.err")"
mkdir -m 700 "$tmp/other"
"$iashim" keygen --dir "$tmp/other" >/dev/null  # a key pair of some other coordinator

port=$(free_port)
pub_port=$(free_port)
local_endpoint="tcp://127.0.0.1:$port"

# --- no key, an address other machines reach: refused before binding, exit 2.
set +e
"$coordinator" --listen "tcp://0.0.0.0:$port" --pub "tcp://127.0.0.1:$pub_port" \
  --state-dir "$tmp/state0" 2>"$tmp/refused.err"
code=$?
set -e
[[ $code == 2 ]] || fail "a plain-text coordinator on 0.0.0.0 exited $code, not 2"
grep -q "iashim keygen" "$tmp/refused.err" || fail "unclear refusal: $(cat "$tmp/refused.err")"
[[ ! -e "$tmp/state0" ]] || fail "the refused coordinator touched its state directory"

# --- with the key: every interface, CURVE.
"$coordinator" --listen "tcp://0.0.0.0:$port" --pub "tcp://0.0.0.0:$pub_port" \
  --curve-secret-key "$keys/coordinator.key_secret" --admin-key "$keys/admin.key" \
  --state-dir "$tmp/state" --placement simple >>"$tmp/coordinator.log" 2>&1 &
pids+=($!)
ok=""
for _ in $(seq 50); do
  if "$iashim" status --coordinator "$local_endpoint" --coordinator-key "$keys/coordinator.key" \
    --timeout-s 1 >/dev/null 2>"$tmp/status.err"; then ok=1; break; fi
  sleep 0.1
done
[[ -n "$ok" ]] || fail "iashim status --coordinator-key got no answer: $(cat "$tmp/status.err"); key $(cat "$keys/coordinator.key")"

# --- tools without the key.
set +e
"$iashim" status --coordinator "$local_endpoint" --timeout-s 0.5 2>"$tmp/nokey.err"
code=$?
set -e
[[ $code == 4 ]] || fail "status without the key exited $code"
# Without a key configured the key is not suggested (most users run a plain
# coordinator): it says how to start one.
grep -q -- "start one with iashim-coordinator" "$tmp/nokey.err" || fail "status without the key: $(cat "$tmp/nokey.err")"
grep -q -- "--coordinator-key" "$tmp/nokey.err" && fail "status without the key mentions a key: $(cat "$tmp/nokey.err")"
set +e
"$iashim" status --coordinator "tcp://10.255.255.1:$port" 2>"$tmp/remote.err"
code=$?
"$top" --pub "tcp://10.255.255.1:$pub_port" 2>"$tmp/top.err" </dev/null
top_code=$?
set -e
[[ $code == 2 ]] || fail "status to a remote coordinator without a key exited $code"
grep -q "beyond this machine" "$tmp/remote.err" || fail "status: $(cat "$tmp/remote.err")"
[[ $top_code == 2 ]] || fail "iashim-top to a remote coordinator without a key exited $top_code"
grep -q "beyond this machine" "$tmp/top.err" || fail "iashim-top: $(cat "$tmp/top.err")"

# --- jobs: the key, no key, a wrong key; all placed by `iashim run` (with the
# key), the last two with the shim's key taken away or replaced.
export IASHIM_COORDINATOR_KEY="$keys/coordinator.key"
run() {
  local job=$1
  shift
  "$iashim" run --simgpu --coordinator "$local_endpoint" --priority opportunistic --mem 2GiB \
    --job "$job" -- "$@" >"$tmp/$job.out" 2>"$tmp/$job.err" &
  pids+=($!)
}
# Started throttled (its Hello says share 0.5), so the coordinator's control
# loop sends it a Budget at its first step.
run keyed env IASHIM_SHARE=0.5 "$fakejob" --model resnet18 --seconds 15
keyed_pid=$!
run nokey env -u IASHIM_COORDINATOR_KEY "$fakejob" --model resnet18 --seconds 8
nokey_pid=$!
run wrongkey env IASHIM_COORDINATOR_KEY="$tmp/other/coordinator.key" "$fakejob" --model resnet18 --seconds 8
wrongkey_pid=$!
run remote env -u IASHIM_COORDINATOR_KEY IASHIM_COORDINATOR="tcp://10.255.255.1:$port" \
  "$fakejob" --model resnet18 --seconds 1
remote_pid=$!

job_state() {  # job_state JOB: "CONNECTED BUDGET_AGE_MS" from `iashim status --json`, "" if absent
  "$iashim" status --json --coordinator "$local_endpoint" --timeout-s 2 2>/dev/null |
    python3 -c '
import json, sys
for gpu in json.load(sys.stdin).get("gpus", []):
    for j in gpu.get("jobs", []):
        if j.get("job") == sys.argv[1]:
            print(str(j["connected"]).lower(), j["budget_age_ms"])
' "$1" || true
}
# Until the keyed job (15 s) is registered and has been sent a budget.
state=""
deadline=$((SECONDS + 14))
while ((SECONDS < deadline)); do
  state=$(job_state keyed)
  [[ "$state" == true* && "$state" != "true 0" ]] && break
  sleep 0.2
done
[[ "$state" == true* && "$state" != "true 0" ]] ||
  fail "the job with the key did not register and get a budget (state '$state')"
echo "keyed job: connected, its budget sent ${state#true } ms before"

wait "$nokey_pid" || fail "the job without the key failed: $(cat "$tmp/nokey.err")"
wait "$wrongkey_pid" || fail "the job with a wrong key failed: $(cat "$tmp/wrongkey.err")"
wait "$remote_pid" || fail "the job with a remote coordinator failed: $(cat "$tmp/remote.err")"
for job in nokey wrongkey; do
  grep -q '"summary"' "$tmp/$job.out" || fail "the $job job did not run to its end: $(cat "$tmp/$job.out")"
  # Placed by `iashim run` (which had the key), never heard from by its shim.
  [[ $(job_state $job) == "false 0" ]] || fail "the $job job registered: '$(job_state $job)'"
done
grep -q "telemetry is not sent in plain text" "$tmp/remote.err" ||
  fail "no warning for a remote coordinator without a key: $(cat "$tmp/remote.err")"
[[ $(grep -c "IASHIM_COORDINATOR" "$tmp/remote.err") == 1 ]] || fail "more than one warning"
wait "$keyed_pid" || fail "the job with the key failed: $(cat "$tmp/keyed.err")"
echo "jobs without the coordinator's key ran unmanaged; the keyed one was managed"

# --- admin: write actions need the admin key (when the coordinator has them).
if "$iashim" drain --help >/dev/null 2>&1; then
  host=$("$iashim" status --json --coordinator "$local_endpoint" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["gpus"][0]["host"])')
  set +e
  "$iashim" drain "$host:3" --coordinator "$local_endpoint" 2>"$tmp/drain-noadmin.err"
  code=$?
  set -e
  [[ $code == 1 ]] || fail "drain without the admin key exited $code: $(cat "$tmp/drain-noadmin.err")"
  "$iashim" drain "$host:3" --coordinator "$local_endpoint" \
    --admin-key "$keys/admin.key_secret" >"$tmp/drain.out" 2>&1 ||
    fail "drain with the admin key: $(cat "$tmp/drain.out")"
  "$iashim" status --json --coordinator "$local_endpoint" | tr -d ' \n' | grep -q '"drained":true' ||
    fail "drain with the admin key did not drain"
  echo "drain: refused without the admin key, done with it"
fi
echo "curve_test: passed"
