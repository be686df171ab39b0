# Sourced by the daemon's end-to-end scripts (restart, curve, first use): the
# built tools, a private temporary directory and simulated GPU namespace, and
# a cleanup on exit that kills every process the test started (appended to
# `pids`) and removes what it made.
#
#   source simgpu_session.sh BUILD_DIR NAME [DEVICES]
#
# Sets build, iashim, coordinator, top, fakejob, tmp and pids, and exports
# SIMGPU_NAMESPACE (iashim-NAME-PID), SIMGPU_DEVICES (DEVICES, default one
# V100) and LD_LIBRARY_PATH (simgpu).
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
  rm -f /dev/shm/"$SIMGPU_NAMESPACE"-gpu*
}
trap cleanup EXIT  # bash runs it on INT and TERM too
