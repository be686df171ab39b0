# Shared by the fault tests (sourced): paths, a private simulated GPU and
# coordinator endpoints, starting and stopping processes, and reading
# `iashim status --json`. Every process started through `track` is killed on
# exit, whatever happens, and every `on_exit` command runs.
#
#   source "$(dirname "$0")/common.sh" BUILD_DIR TEST_NAME
set -euo pipefail

build=$(cd "$1" && pwd)
fault_name=$2
iashim=$build/coordinator/cli/iashim
coordinator=$build/coordinator/daemon/iashim-coordinator
fault_job=$build/tests/fault/fault-job
nvml_probe=$build/tests/fault/fault-nvml-probe
tmp=$(mktemp -d "/tmp/iashim-$fault_name.XXXXXX")
export SIMGPU_NAMESPACE="iashim-$fault_name-$$"
export SIMGPU_DEVICES="${SIMGPU_DEVICES:-Tesla V100-SXM2-32GB:32GiB:80}"
export LD_LIBRARY_PATH="$build/simgpu"
export IASHIM_COORDINATOR="ipc://$tmp/router"
state_dir=$tmp/state
coordinator_log=$tmp/coordinator.log
coordinator_pid=""
tracked=()
exit_hooks=()

track() { tracked+=("$@"); }
on_exit() { exit_hooks+=("$1"); }

cleanup() {
  local p
  # A stopped process cannot die of SIGKILL until it runs again: continue first.
  for p in "${tracked[@]}"; do kill -CONT "$p" 2>/dev/null || true; done
  for p in "${tracked[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  for p in "${exit_hooks[@]}"; do eval "$p" || true; done
  [[ -n ${FAULT_KEEP_TMP:-} ]] || rm -rf "$tmp"
  rm -f /dev/shm/"$SIMGPU_NAMESPACE"-gpu*
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
  echo "FAIL: $*" >&2
  if [[ -s $coordinator_log ]]; then
    echo "--- coordinator log (last 40 lines)" >&2
    tail -40 "$coordinator_log" >&2
  fi
  exit 1
}

# Waits up to $1 seconds for the command that follows to succeed.
wait_for() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.1
  done
}

coordinator_answers() { "$iashim" status --timeout-s 0.3 >/dev/null 2>&1; }

# Starts the coordinator on this test's endpoints and state dir; extra
# arguments are passed on. Sets coordinator_pid.
start_coordinator() {
  "$coordinator" --listen "$IASHIM_COORDINATOR" --pub "ipc://$tmp/pub" --state-dir "$state_dir" \
    "$@" >>"$coordinator_log" 2>&1 &
  coordinator_pid=$!
  track "$coordinator_pid"
  wait_for 10 coordinator_answers || fail "the coordinator did not answer within 10 s"
}

# `iashim status --json` on one line without spaces ("" if no answer).
status_line() { "$iashim" status --json --timeout-s "${1:-1}" 2>/dev/null | tr -d ' \n' || true; }

# The JSON object of job $2 in status line $1 (jobs hold no nested objects).
job_object() { grep -o "{\"job\":\"$2\"[^}]*}" <<<"$1" || true; }

# Field $2 of JSON object $1, as printed (strings keep their quotes).
field() { sed -n "s/.*\"$2\": *\(\"[^\"]*\"\|[^,}]*\).*/\1/p" <<<"$1"; }

connected_jobs() { grep -o '"connected":true' <<<"$(status_line)" | wc -l; }

# Last value of key $2 in a fault-job output file $1 (progress lines).
last_value() { grep "\"$2\":" "$1" | tail -1 | sed "s/.*\"$2\": \([^,}]*\).*/\1/"; }

# Floating-point comparison: float_test "A >= B"
float_test() { awk "BEGIN { exit !($1) }"; }

# A TCP port nothing listens on now, for --metrics.
free_port() {
  local p
  for _ in $(seq 50); do
    p=$((20000 + RANDOM % 40000))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
  fail "no free TCP port found"
}

# GET /metrics from 127.0.0.1:$1 (bash's /dev/tcp: no curl needed).
metrics() {
  exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
  printf 'GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
  cat <&3
  exec 3<&-
}

# The value of one metric sample (name with labels, as printed) in text $1.
metric() { awk -v n="$2" '$1 == n { print $2 }' <<<"$1"; }
