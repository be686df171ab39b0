#!/usr/bin/env bash
# Stops a compute node of the cluster scripts/cluster-up.sh made the way a
# machine dies (every process in its namespaces killed at once, no daemon or
# job told), or starts it again (its slurmd, which rejoins Slurm). Root only.
#
#   scripts/cluster-node.sh stop NODE [--dir DIR]     e.g. stop node2
#   scripts/cluster-node.sh start NODE [--dir DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=cluster_common.sh
source scripts/cluster_common.sh

case "${1:-}" in
  -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
  stop|start) action=$1 ;;
  *) die "usage: cluster-node.sh stop|start NODE [--dir DIR] (see --help)" ;;
esac
node=${2:-}
[[ "$node" =~ ^node[1-8]$ ]] || die "NODE must be a compute node, node1..node8 (got '$node')"
shift 2
while [[ $# -gt 0 ]]; do
  case "$1" in
    --dir) cluster_dir="${2:-}"; shift 2 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ $(id -u) -eq 0 ]] || die "needs root"
[[ -e "/run/netns/iashim-$node" && -e "$cluster_dir/ns/$node.mnt" ]] ||
  die "$node is not part of a cluster in $cluster_dir (scripts/cluster-up.sh)"

if [[ $action == stop ]]; then
  mapfile -t pids < <(ip netns pids "iashim-$node")
  if [[ ${#pids[@]} -gt 0 ]]; then kill -KILL "${pids[@]}" 2>/dev/null || true; fi
  # Its simulated GPUs go with it: a machine that dies loses its device state.
  on "$node" bash -c 'rm -f /dev/shm/*'
  say "stopped iashim-$node: ${#pids[@]} processes killed"
else
  if [[ -n "$(ip netns pids "iashim-$node")" ]]; then
    die "iashim-$node still runs processes ($(ip netns pids "iashim-$node" | wc -l)); stop it first"
  fi
  rm -f "$cluster_dir/slurm/slurmd-iashim-$node.pid"
  on "$node" slurmd -f "$cluster_dir/slurm.conf" || die "slurmd on iashim-$node did not start"
  say "started slurmd on iashim-$node"
fi
