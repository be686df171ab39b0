# shellcheck shell=bash
# Sourced by the bench/gang scripts that start fake jobs under `timeout`: the
# jobs they started ($pids), stopping them, and cleaning up on exit. The
# script sets $tmp (its scratch directory) and $prefix (its simgpu namespaces'
# prefix) before it sources this; SIMGPU_FABRIC, when set, is a directory whose
# collective groups are cleared with the jobs.
# shellcheck disable=SC2154  # tmp, prefix: set by the script that sources this one
pids=()

# Stops every job started so far: each pid is a `timeout`, so its job first
# (a rank told to stop waits to agree with its gang), then it, and waits for
# them; then removes their simulated devices. (The shell's "Killed" report of
# each job goes where the kills' errors do.)
stop_all() {
  {
    for p in "${pids[@]}"; do
      pkill -KILL -P "$p" || true
      kill -KILL "$p" || true
    done
    wait || true
  } 2>/dev/null
  pids=()
  rm -f /dev/shm/"$prefix"-*
  [[ -z ${SIMGPU_FABRIC:-} ]] || rm -f "$SIMGPU_FABRIC"/collectives
}
cleanup() { stop_all; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# summary FILE [RANK]: the iter_ms of the fake job's summary line in FILE (of
# rank RANK for a gang's rank); lines that are not JSON (the shim's) skipped.
summary() {
  grep '^{' "$1" | jq -r --argjson rank "${2:-null}" \
    'select(.summary == true and (.rank == $rank)) | .iter_ms'
}
