#!/usr/bin/env bash
# A Slurm cluster with iashim on this one machine: a head node and N compute
# nodes, each in its own network, UTS and mount namespace, with its own
# hostname (iashim-head, iashim-node1..N) and address on a bridge that lives
# in a namespace of its own (iashim-switch). Nothing is addressed outside the
# namespaces this script makes, and nothing reaches beyond the machine.
#
#   head:     munged, slurmctld (with job_submit.lua, its node choice a
#             preference: each node carries its name as a feature, so a
#             pending job starts on another node when its own is busy),
#             iashim-coordinator listening on the head's address with
#             CurveZMQ (iashim keygen)
#   compute:  slurmd, and its own simgpu: a private /dev/shm, so its 4
#             simulated V100s are its own; /dev/nvidia[0-3] as Slurm sees them
#   network:  simgpu's fabric between the nodes (SIMGPU_FABRIC, a directory
#             every node sees), where the ranks of a job on several nodes
#             meet in their all-reduce at an InfiniBand port's bandwidth
#
# Every shim, tool and daemon talks to the coordinator across the bridge.
# Run a command on a node with scripts/cluster-on.sh NODE -- COMMAND (sinfo,
# sbatch, iashim status on iashim-head). Tear down with scripts/cluster-down.sh.
#
#   scripts/cluster-up.sh [--nodes N] [--build-dir DIR] [--dir DIR]
#                         [--join-busy-gpus yes|no|auto] [--move-jobs yes|no]
#
#   --nodes N      compute nodes, 1..8 (default 3)
#   --build-dir    a built tree (default: scripts/setup.sh builds build/)
#   --dir          where the cluster keeps its state (default /run/iashim-cluster)
#   --join-busy-gpus  the coordinator's flag of that name: a whole-GPU job
#                  no node has empty GPUs for goes beside the jobs where
#                  sharing is predicted to gain most, as Slurm 22.05 starts
#                  gpu:k on GPUs whose shards are in use; auto (default): yes
#                  when the installed slurmctld is 22.05
#   --move-jobs    the coordinator moves a slowed one-GPU opportunistic batch job
#                  to a GPU left empty longer than Slurm's backfill interval
#                  (its --move-command, integrations/slurm/iashim-move-job:
#                  scontrol requeue; jobs submitted with --requeue that resume
#                  from a checkpoint); default no
#
# Idempotent: a cluster already up with as many nodes and the same
# coordinator flag is left as it is; any other, or one half made, is taken
# down first. If bringing it
# up fails or is interrupted, everything made so far is taken down. Root only.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
# shellcheck source=cluster_common.sh
source scripts/cluster_common.sh

nodes=3
build=""
join_busy=auto
move_jobs=no
while [[ $# -gt 0 ]]; do
  case "$1" in
    --move-jobs) move_jobs="${2:-}"; shift 2
      [[ "$move_jobs" =~ ^(yes|no)$ ]] || die "--move-jobs must be yes or no (got '$move_jobs')" ;;
    --join-busy-gpus) join_busy="${2:-}"; shift 2
      [[ "$join_busy" =~ ^(yes|no|auto)$ ]] || die "--join-busy-gpus must be yes, no or auto (got '$join_busy')" ;;
    --nodes) nodes="${2:-}"; shift 2
      [[ "$nodes" =~ ^[1-8]$ ]] || die "--nodes must be 1..8 (got '$nodes')" ;;
    --build-dir) build="${2:-}"; shift 2
      [[ -x "$build/coordinator/cli/iashim" ]] || die "--build-dir '$build' has no built iashim" ;;
    --dir) cluster_dir="${2:-}"; shift 2
      [[ "$cluster_dir" == /* ]] || die "--dir must be an absolute path (got '$cluster_dir')" ;;
    -h|--help) sed -n '2,/^set -euo pipefail/p' "$0" | sed '$d'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
export IASHIM_CLUSTER_DIR=$cluster_dir
[[ $(id -u) -eq 0 ]] || die "needs root (it makes namespaces, a bridge and device nodes, and starts slurmd)"
if [[ "$join_busy" == auto ]]; then
  join_busy=no
  [[ "$(slurmctld -V 2>/dev/null || true)" != *" 22.05."* ]] || join_busy=yes
fi
coordinator_flags=()
[[ "$join_busy" == no ]] || coordinator_flags+=(--join-busy-gpus)

if cluster_is_up; then
  if [[ "$(cat "$cluster_dir/nodes")" == "$nodes" &&
        "$(cat "$cluster_dir/join-busy-gpus" 2>/dev/null || echo no)" == "$join_busy" &&
        "$(cat "$cluster_dir/move-jobs" 2>/dev/null || echo no)" == "$move_jobs" ]]; then
    say "already up: iashim-head and $nodes compute nodes ($cluster_dir)"
    exit 0
  fi
  say "up with $(cat "$cluster_dir/nodes") compute nodes (--join-busy-gpus" \
    "$(cat "$cluster_dir/join-busy-gpus" 2>/dev/null || echo no), --move-jobs" \
    "$(cat "$cluster_dir/move-jobs" 2>/dev/null || echo no)), not $nodes ($join_busy, $move_jobs): taking it down first"
fi
if [[ -e "$cluster_dir" ]] || ip netns list 2>/dev/null | grep -q '^iashim-'; then
  "$repo/scripts/cluster-down.sh" --dir "$cluster_dir" >/dev/null
fi

# --- what it needs ----------------------------------------------------------------
# shellcheck source=slurm_common.sh
source scripts/slurm_common.sh
# A GPU empty longer than a backfill pass takes no job from Slurm's queue.
if [[ "$move_jobs" == yes ]]; then
  coordinator_flags+=(--move-command "$repo/integrations/slurm/iashim-move-job"
                      --move-after-empty-s "$((slurm_backfill_interval_s + 1))")
fi
install_missing_packages slurm-wlm munge jq iproute2 util-linux
build=$(built_tree "$build")
for f in coordinator/cli/iashim coordinator/daemon/iashim-coordinator integrations/slurm/iashim_spank.so \
         bench/iashim-fakejob simgpu/libcuda.so.1 libiashim/libiashim.so; do
  [[ -e "$build/$f" ]] || die "$build/$f is not built (scripts/setup.sh builds it)"
done

# From here on, a failure or an interrupt takes down what was made.
up_ok=0
on_exit() {
  local rc=$?
  trap - EXIT INT TERM
  if [[ $up_ok -ne 1 ]]; then
    echo "cluster-up.sh: failed; logs follow, then everything made is taken down" >&2
    for f in "$cluster_dir"/log/*.log; do
      [[ -s "$f" ]] || continue
      echo "---- $f (last 20 lines)" >&2
      tail -n 20 "$f" >&2
    done
    "$repo/scripts/cluster-down.sh" --dir "$cluster_dir" >/dev/null 2>&1 || true
    [[ $rc -eq 0 ]] && rc=1
  fi
  exit $rc
}
trap on_exit EXIT
trap 'exit 130' INT TERM

mkdir -p "$cluster_dir"/{ns,log,munge,munge-key,coordinator,slurm/state,slurm/spool,out}
# The fabric: the jobs (run as any user) map their collectives' file there.
mkdir -p "$cluster_dir/fabric"
chmod 1777 "$cluster_dir/fabric"
chmod 755 "$cluster_dir"
touch "$cluster_dir/.iashim-cluster"  # cluster-down.sh removes only a directory with this
chmod 1777 "$cluster_dir/out"
echo "$nodes" >"$cluster_dir/nodes"
echo "$join_busy" >"$cluster_dir/join-busy-gpus"
echo "$move_jobs" >"$cluster_dir/move-jobs"
echo "$build" >"$cluster_dir/build"

# --- namespaces and the bridge --------------------------------------------------------
# Persistent UTS and mount namespaces are bind mounts of nsfs files, which must
# live on a private mount.
mount --bind "$cluster_dir/ns" "$cluster_dir/ns"
mount --make-private "$cluster_dir/ns"
if ! ip netns add iashim-switch 2>"$cluster_dir/log/netns.err"; then
  die "the kernel refused a network namespace: $(cat "$cluster_dir/log/netns.err") (a container needs CAP_SYS_ADMIN, or run on the host)"
fi
ip -n iashim-switch link add br0 type bridge
ip -n iashim-switch link set br0 up
ip -n iashim-switch link set lo up

make_node() {  # NAME ADDRESS
  local name=$1 address=$2 host=iashim-$1
  ip netns add "iashim-$name"
  touch "$cluster_dir/ns/$name.uts" "$cluster_dir/ns/$name.mnt"
  # Its own hostname, and its own /dev/shm (simgpu's GPUs and NVML live there).
  if ! unshare --uts="$cluster_dir/ns/$name.uts" --mount="$cluster_dir/ns/$name.mnt" \
       --propagation private sh -c "hostname $host && mount -t tmpfs -o mode=1777,size=256m tmpfs /dev/shm" \
       2>"$cluster_dir/log/unshare.err"; then
    die "the kernel refused a UTS or mount namespace for $host: $(cat "$cluster_dir/log/unshare.err")"
  fi
  ip -n "iashim-$name" link add eth0 type veth peer name "p-$name" netns iashim-switch
  ip -n iashim-switch link set "p-$name" master br0 up
  ip -n "iashim-$name" addr add "$address/24" dev eth0
  ip -n "iashim-$name" link set eth0 up
  ip -n "iashim-$name" link set lo up
  echo "$host $address" >>"$cluster_dir/hosts"
}
: >"$cluster_dir/hosts"
make_node head "$(node_address head)"
for i in $(seq "$nodes"); do make_node "node$i" "$(node_address "node$i")"; done

# The GPUs Slurm schedules: device nodes as the NVIDIA driver makes them
# (major 195), made only where absent (and listed, so cluster-down removes them).
: >"$cluster_dir/made-devices"
for i in 0 1 2 3; do
  if [[ ! -e /dev/nvidia$i ]]; then
    mknod -m 666 /dev/nvidia$i c 195 $i
    echo "/dev/nvidia$i" >>"$cluster_dir/made-devices"
  fi
done

# --- keys and configuration -------------------------------------------------------------
"$build/coordinator/cli/iashim" keygen --dir "$cluster_dir/keys" >/dev/null
"$build/coordinator/cli/iashim" keygen --dir "$cluster_dir/keys" --admin >/dev/null
chmod 755 "$cluster_dir/keys"  # the public keys are for every user's tools; the secrets stay 0600
head_address=$(node_address head)
coordinator="tcp://$head_address:5555"
cat >"$cluster_dir/env" <<EOF
# The environment of the cluster's users (scripts/cluster-on.sh sources it).
export SLURM_CONF=$cluster_dir/slurm.conf
export IASHIM_COORDINATOR=$coordinator
export IASHIM_COORDINATOR_KEY=$cluster_dir/keys/coordinator.key
export SIMGPU_NAMESPACE=iashim-cluster
export SIMGPU_DEVICES="4xTesla V100-SXM2-32GB:32GiB:80"
export SIMGPU_FABRIC=$cluster_dir/fabric
export IASHIM_MODELS_DIR=$repo/bench/data/models
export LD_LIBRARY_PATH=$build/simgpu
export PATH=$build/coordinator/cli:$build/bench:\$PATH
EOF

{
  echo "ClusterName=iashimcluster"
  echo "SlurmctldHost=iashim-head($head_address)"
  slurm_conf_policy
  cat <<EOF
AuthInfo=socket=$cluster_dir/munge/munge.socket
StateSaveLocation=$cluster_dir/slurm/state
SlurmdSpoolDir=$cluster_dir/slurm/spool/%n
SlurmctldPidFile=$cluster_dir/slurm/slurmctld.pid
SlurmdPidFile=$cluster_dir/slurm/slurmd-%n.pid
SlurmctldLogFile=$cluster_dir/log/slurmctld.log
SlurmdLogFile=$cluster_dir/log/slurmd-%n.log
SlurmdTimeout=10
PlugStackConfig=$cluster_dir/plugstack.conf
EOF
  for i in $(seq "$nodes"); do
    echo "NodeName=iashim-node$i NodeAddr=$(node_address "node$i") CPUs=$cluster_node_cpus RealMemory=4000 Gres=gpu:4,shard:16,$slurm_guaranteed_gres:4 Features=iashim-node$i State=UNKNOWN"
  done
  echo "PartitionName=debug Nodes=iashim-node[1-$nodes] Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO"
} >"$cluster_dir/slurm.conf"
cat >"$cluster_dir/gres.conf" <<EOF
Name=gpu File=/dev/nvidia[0-3]
Name=shard Count=16
Name=$slurm_guaranteed_gres Count=4 Flags=CountOnly
EOF
cat >"$cluster_dir/plugstack.conf" <<EOF
required $build/integrations/slurm/iashim_spank.so coordinator=$coordinator coordinator_key=$cluster_dir/keys/coordinator.key timeout_s=2
EOF
cp integrations/slurm/job_submit.lua "$cluster_dir/job_submit.lua"
{
  for i in $(seq "$nodes"); do
    echo "node iashim-node$i"
    echo "gpu 0-3 v100 32GiB name=\"Tesla V100-SXM2-32GB\""
  done
} >"$cluster_dir/cluster.txt"

# --- daemons ------------------------------------------------------------------------------
dd if=/dev/urandom of="$cluster_dir/munge-key/munge.key" bs=1024 count=1 status=none
chmod 700 "$cluster_dir/munge-key"
chmod 400 "$cluster_dir/munge-key/munge.key"
# One munged, on the head; every node's daemons reach its socket on the shared disk.
on head /usr/sbin/munged --force --key-file="$cluster_dir/munge-key/munge.key" \
  --socket="$cluster_dir/munge/munge.socket" --pid-file="$cluster_dir/munge/munged.pid" \
  --log-file="$cluster_dir/log/munged.log" --seed-file="$cluster_dir/munge/seed" --origin="$head_address" ||
  die "munged did not start"

# SLURM_CONF: its --move-command's scontrol (--move-jobs) finds this cluster.
exec_on head env SLURM_CONF="$cluster_dir/slurm.conf" "$build/coordinator/daemon/iashim-coordinator" \
  --listen "$coordinator" --pub "tcp://$head_address:5556" \
  --curve-secret-key "$cluster_dir/keys/coordinator.key_secret" --admin-key "$cluster_dir/keys/admin.key" \
  --state-dir "$cluster_dir/coordinator/state" --cluster "$cluster_dir/cluster.txt" "${coordinator_flags[@]}" \
  >>"$cluster_dir/log/coordinator.log" 2>&1 </dev/null &  # cluster-down.sh stops it with the head
for _ in $(seq 50); do
  on head iashim status --timeout-s 0.3 >/dev/null 2>&1 && break
  sleep 0.1
done
on head iashim status --timeout-s 1 >/dev/null || die "the coordinator does not answer on $coordinator"
# Across the bridge, encrypted.
on node1 iashim status --timeout-s 2 >/dev/null ||
  die "iashim-node1 cannot reach the coordinator on $coordinator across the bridge"

# job_submit.lua runs inside slurmctld and asks the coordinator with this iashim.
on head env IASHIM_BIN="$build/coordinator/cli/iashim" IASHIM_SUBMIT_NODE_CHOICE=prefer \
  IASHIM_GUARANTEED_GRES="$slurm_guaranteed_gres" \
  slurmctld -f "$cluster_dir/slurm.conf" ||
  die "slurmctld did not start"
for i in $(seq "$nodes"); do
  on "node$i" slurmd -f "$cluster_dir/slurm.conf" || die "slurmd on iashim-node$i did not start"
done
for _ in $(seq 60); do
  idle=$(on head sinfo -h -o '%n %t' 2>/dev/null | awk '$2 == "idle"' | wc -l)
  [[ $idle -eq $nodes ]] && break
  sleep 0.5
done
[[ $idle -eq $nodes ]] || die "$idle of $nodes nodes idle: $(on head sinfo -h -N -o '%n %t %E' 2>&1)"

up_ok=1
say "up: iashim-head ($head_address: slurmctld, munged, iashim-coordinator on $coordinator with CurveZMQ)"
say "compute: $(on head sinfo -h -N -o '%n' | tr '\n' ' ')each with 4 simulated V100s; state in $cluster_dir"
dir_arg=""
[[ "$cluster_dir" == /run/iashim-cluster ]] || dir_arg=" --dir $cluster_dir"
say "try: scripts/cluster-on.sh head$dir_arg -- sinfo;  stop: scripts/cluster-down.sh$dir_arg"
