#!/usr/bin/env bash
# Runs a command on a node of the cluster scripts/cluster-up.sh made: in the
# node's network, UTS and mount namespaces, with the cluster's environment
# (SLURM_CONF, IASHIM_COORDINATOR and its key, simgpu's settings, iashim and
# iashim-fakejob on PATH). Root only (nsenter).
#
#   scripts/cluster-on.sh NODE [--dir DIR] -- COMMAND [ARGS...]
#
#   scripts/cluster-on.sh head -- sinfo
#   scripts/cluster-on.sh head -- iashim status
#   scripts/cluster-on.sh node2 -- iashim-fakejob --model resnet18 --seconds 5
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=cluster_common.sh
source scripts/cluster_common.sh

[[ $# -ge 1 ]] || die "usage: cluster-on.sh NODE [--dir DIR] -- COMMAND [ARGS...] (see --help)"
case "$1" in -h|--help) sed -n '2,12p' "$0"; exit 0 ;; esac
node=$1
shift
node_address "$node" >/dev/null || die "no node '$node' (head, node1..node8)"
while [[ $# -gt 0 && "$1" != "--" ]]; do
  case "$1" in
    --dir) cluster_dir="${2:-}"; shift 2 ;;
    *) die "unknown argument '$1' (the command goes after --)" ;;
  esac
done
[[ "${1:-}" == "--" && $# -ge 2 ]] || die "no command (it goes after --)"
shift
[[ $(id -u) -eq 0 ]] || die "needs root (nsenter)"
[[ -e "/run/netns/iashim-$node" && -e "$cluster_dir/ns/$node.mnt" ]] ||
  die "$node is not up (scripts/cluster-up.sh; state in $cluster_dir)"
on "$node" "$@"
