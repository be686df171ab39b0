# shellcheck shell=bash
# What cluster-up.sh, cluster-down.sh and cluster-on.sh share: where the
# cluster lives, its nodes' addresses, and running a command on a node.

cluster_dir=${IASHIM_CLUSTER_DIR:-/run/iashim-cluster}

say() { echo "$(basename "$0"): $*"; }
die() { echo "$(basename "$0"): $*" >&2; exit 2; }

# A node's address on the bridge: the head is .10, node i is .(10+i). The
# subnet exists only inside the namespaces the cluster makes.
node_address() {
  case "$1" in
    head) echo "10.211.73.10" ;;
    node[1-8]) echo "10.211.73.$((10 + ${1#node}))" ;;
    *) return 1 ;;
  esac
}

# Runs COMMAND... on NODE (head, node1..): in its network, UTS and mount
# namespaces, with the cluster's environment.
on() {
  local node=$1
  shift
  # shellcheck disable=SC2016  # expanded by the inner bash
  exec_on "$node" bash -c '[[ ! -f "$0/env" ]] || source "$0/env"; exec "$@"' "$cluster_dir" "$@"
}

# The same without the cluster's environment (a daemon that needs none).
exec_on() {
  local node=$1
  shift
  nsenter --net="/run/netns/iashim-$node" --uts="$cluster_dir/ns/$node.uts" \
    --mount="$cluster_dir/ns/$node.mnt" -- "$@"
}

# True when a cluster made in $cluster_dir is fully up (every namespace there).
cluster_is_up() {
  [[ -s "$cluster_dir/nodes" && -s "$cluster_dir/env" ]] || return 1
  local n
  n=$(cat "$cluster_dir/nodes")
  [[ -e /run/netns/iashim-head && -e "$cluster_dir/ns/head.mnt" ]] || return 1
  for i in $(seq "$n"); do [[ -e /run/netns/iashim-node$i ]] || return 1; done
  [[ -s "$cluster_dir/slurm/slurmctld.pid" ]] && kill -0 "$(cat "$cluster_dir/slurm/slurmctld.pid")" 2>/dev/null
}
