# shellcheck shell=bash
# What the scripts that run a real Slurm (slurm-test.sh, cluster-up.sh) share:
# the Debian packages they need, the build they use, and how their Slurm is
# configured.

# Installs those of the given Debian packages that are missing (as root).
install_missing_packages() {
  local p missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [[ ${#missing[@]} -gt 0 ]] || return 0
  echo "$(basename "$0"): installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# The absolute path of BUILD_DIR, or of build/ after scripts/setup.sh built it
# when BUILD_DIR is empty. Run from the repository's root.
built_tree() {
  if [[ -z "$1" ]]; then
    scripts/setup.sh >/dev/null
    (cd build && pwd)
  else
    (cd "$1" && pwd)
  fi
}

# The slurm.conf lines every Slurm of ours has: munge, root daemons, no
# cgroups or accounting, consumable GPUs and shards, job_submit.lua, and a
# backfill pass every 2 s: Slurm 22.05's main scheduler leaves a job whose
# preferred node (job_submit.lua's node choice under prefer) is busy pending,
# with every job behind it, until backfill starts it on another node
# (integrations/slurm/README.md, "A busy preferred node waits for the
# backfill pass"). Each script adds its paths, ports and nodes.
slurm_backfill_interval_s=2  # iashim-clustersim simulates this Slurm with it (live-replay.sh)
# The CPUs of a node of scripts/cluster-up.sh, a job's task taking one
# (iashim-clustersim --cpus-per-node, live-replay.sh): five per GPU, as a
# DGX-1 has (40 cores for 8 V100s). Two per GPU, as before 2026-12-04's
# last runs, filled a node's CPUs with its eight shard jobs and kept gangs
# pending for CPUs a real node has.
# shellcheck disable=SC2034  # read by the scripts that source this one
cluster_node_cpus=20
# A count-only GRES each node of scripts/cluster-up.sh has one of per GPU,
# and every guaranteed --iashim job asks for one per GPU it uses there
# (job_submit.lua, IASHIM_GUARANTEED_GRES): Slurm then starts no guaranteed
# job where the node's guaranteed jobs would need more GPUs than it has, so
# a guaranteed gang is not given a GPU a guaranteed shard job uses unless
# the node leaves it no other (iashim-clustersim --guaranteed-gres).
slurm_guaranteed_gres=iashim_guaranteed
slurm_conf_policy() {
  cat <<EOF
AuthType=auth/munge
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
SlurmdDebug=verbose
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=$slurm_backfill_interval_s
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=600
GresTypes=gpu,shard,$slurm_guaranteed_gres
JobSubmitPlugins=lua
EOF
}
