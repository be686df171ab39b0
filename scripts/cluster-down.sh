#!/usr/bin/env bash
# Takes down what scripts/cluster-up.sh made: every process in the cluster's
# network namespaces (slurmd, slurmctld, munged, the coordinator, job steps),
# the namespaces, the bridge, the device nodes it made and its directory.
# Safe to run again, or on a half-made cluster. Root only.
#
#   scripts/cluster-down.sh [--dir DIR]     (default /run/iashim-cluster)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=cluster_common.sh
source scripts/cluster_common.sh

while [[ $# -gt 0 ]]; do
  case "$1" in
    --dir) cluster_dir="${2:-}"; shift 2
      [[ "$cluster_dir" == /* ]] || die "--dir must be an absolute path (got '$cluster_dir')" ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ $(id -u) -eq 0 ]] || die "needs root"
# Never remove a directory the cluster did not make.
if [[ -e "$cluster_dir" && ! -e "$cluster_dir/.iashim-cluster" ]]; then
  die "$cluster_dir was not made by cluster-up.sh (no .iashim-cluster in it); not touching it"
fi

namespaces=$(ip netns list 2>/dev/null | awk '$1 ~ /^iashim-/ {print $1}')
if [[ -z "$namespaces" && ! -e "$cluster_dir" ]]; then
  say "nothing to take down"
  exit 0
fi

# Everything that runs in the cluster runs in one of its network namespaces.
pids_in_namespaces() {
  local ns
  for ns in $namespaces; do ip netns pids "$ns" 2>/dev/null || true; done
}
mapfile -t pids < <(pids_in_namespaces)
if [[ ${#pids[@]} -gt 0 ]]; then
  kill -TERM "${pids[@]}" 2>/dev/null || true
  for _ in $(seq 30); do
    mapfile -t pids < <(pids_in_namespaces)
    [[ ${#pids[@]} -eq 0 ]] && break
    sleep 0.1
  done
  if [[ ${#pids[@]} -gt 0 ]]; then kill -KILL "${pids[@]}" 2>/dev/null || true; fi
fi
for ns in $namespaces; do ip netns del "$ns" 2>/dev/null || true; done

if [[ -e "$cluster_dir" ]]; then
  for f in "$cluster_dir"/ns/*.uts "$cluster_dir"/ns/*.mnt; do
    if [[ -e "$f" ]]; then umount "$f" 2>/dev/null || true; fi
  done
  mountpoint -q "$cluster_dir/ns" && umount "$cluster_dir/ns"
  if [[ -s "$cluster_dir/made-devices" ]]; then
    while read -r d; do
      [[ "$d" =~ ^/dev/nvidia[0-9]+$ ]] && rm -f "$d"
    done <"$cluster_dir/made-devices"
  fi
  rm -rf "$cluster_dir"
fi
say "down: $(wc -w <<<"$namespaces") namespaces removed"
