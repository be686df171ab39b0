# Sourced by the daemon's end-to-end scripts (restart, curve, first use,
# learned pairs): the built tools, a private temporary directory and simulated
# GPU namespace, and a cleanup on exit that kills every process the test
# started (appended to `pids`) and removes what it made.
#
#   source simgpu_session.sh BUILD_DIR NAME [DEVICES]
#
# Sets build, iashim, coordinator, top, fakejob, tmp and pids, and exports
# SIMGPU_NAMESPACE (iashim-NAME-PID), SIMGPU_DEVICES (DEVICES, default one
# V100) and LD_LIBRARY_PATH (simgpu). start_coordinator starts the coordinator.
build=$(cd "$1" && pwd)
iashim=$build/coordinator/cli/iashim
coordinator=$build/coordinator/daemon/iashim-coordinator
# shellcheck disable=SC2034  # used by the scripts that source this one
top=$build/coordinator/top/iashim-top
# shellcheck disable=SC2034
fakejob=$build/bench/iashim-fakejob
tmp=$(mktemp -d)
export SIMGPU_NAMESPACE="iashim-$2-$$"
export SIMGPU_DEVICES="${3:-Tesla V100-SXM2-32GB:32GiB:80}"
export LD_LIBRARY_PATH="$build/simgpu"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
  rm -f /dev/shm/"$SIMGPU_NAMESPACE"-gpu* /dev/shm/"$SIMGPU_NAMESPACE"-collectives
}
trap cleanup EXIT  # bash runs it on INT and TERM too

# start_coordinator [ARGS...]: iashim-coordinator on $IASHIM_COORDINATOR
# (which the script sets), publishing on ipc://$tmp/pub, its state in
# $tmp/state and its log appended to $tmp/coordinator.log, with ARGS; sets
# coordinator_pid, and waits up to 10 s for it to answer: returns 1 if it
# does not.
start_coordinator() {
  "$coordinator" --listen "$IASHIM_COORDINATOR" --pub "ipc://$tmp/pub" --state-dir "$tmp/state" \
    "$@" >>"$tmp/coordinator.log" 2>&1 &
  coordinator_pid=$!
  pids+=("$coordinator_pid")
  for _ in $(seq 100); do
    "$iashim" status --timeout-s 0.2 >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  return 1
}
