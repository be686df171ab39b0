#!/usr/bin/env bash
# A 2-node smoke test of scripts/cluster-up.sh (what CI runs; about a minute):
#   - the cluster comes up: every node its own hostname and address, Slurm's
#     nodes idle, the coordinator reached across the bridge with CurveZMQ;
#     a second cluster-up.sh leaves it as it is;
#   - a job pinned to each node runs there, and its shim registers with the
#     head: `iashim status` shows both nodes' jobs under their hosts;
#   - job_submit.lua chooses the node of a job left to it (as a preference),
#     and it runs there;
#   - each node's simulated GPUs are its own (in the node's private /dev/shm);
#   - a shim without the coordinator's key cannot register, and its job runs;
#   - a data-parallel job on both nodes (srun -N 2 -n 8, each node's 4 GPUs)
#     runs to its end on the nodes the coordinator named to job_submit.lua:
#     its ranks meet in their all-reduce across simgpu's fabric, and the
#     coordinator holds each node's tasks as one gang there;
#   - a guaranteed gang does not start beside a guaranteed job on a node
#     that would then need more guaranteed GPUs than it has (a count-only
#     GRES every guaranteed job asks for, job_submit.lua);
#   - a job that says it resumes from a checkpoint (--iashim-movable,
#     --requeue), sharing a full node's GPU while the other node's GPUs sit
#     empty, is moved there: the coordinator asks Slurm to requeue it on that
#     node (cluster-up.sh --move-jobs), and it runs there from its checkpoint;
#     the jobs that did not say so stay where they are;
#   - a node stopped abruptly is marked lost, with its job, within a few
#     seconds (the heartbeat timeout, 3 s), and the other node's job does not
#     slow; started again, it responds to Slurm and a shim on it is heard;
#   - cluster-down.sh leaves no namespace, process, device node or directory.
# Takes the cluster down whatever happens. Root only.
#
#   scripts/cluster-smoke.sh [--build-dir DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
export IASHIM_CLUSTER_DIR=/run/iashim-cluster-smoke
# shellcheck source=cluster_common.sh
source scripts/cluster_common.sh
# shellcheck source=slurm_common.sh
source scripts/slurm_common.sh  # slurm_guaranteed_gres

build_args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) build_args=(--build-dir "${2:-}"); shift 2 ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ $(id -u) -eq 0 ]] || die "needs root (scripts/cluster-up.sh)"

fail() {
  echo "cluster-smoke.sh: FAILED: $*" >&2
  for f in "$cluster_dir"/log/*.log "$cluster_dir"/out/*; do
    [[ -s "$f" ]] || continue
    echo "---- $f (last 15 lines)" >&2
    tail -n 15 "$f" >&2
  done
  exit 1
}
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  "$repo/scripts/cluster-down.sh" --dir "$cluster_dir" >/dev/null 2>&1 || true
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

started=$SECONDS
scripts/cluster-up.sh --nodes 2 --dir "$cluster_dir" --move-jobs yes "${build_args[@]}" ||
  fail "cluster-up.sh failed"
say "up in $((SECONDS - started)) s"
again=$(scripts/cluster-up.sh --nodes 2 --dir "$cluster_dir" --move-jobs yes "${build_args[@]}") ||
  fail "a second cluster-up.sh failed"
grep -q "already up" <<<"$again" || fail "a second cluster-up.sh did not leave the cluster as it was: $again"

for n in node1 node2; do
  [[ $(on "$n" hostname) == "iashim-$n" ]] || fail "$n's hostname is $(on "$n" hostname)"
  on "$n" ip -4 -o addr show dev eth0 | grep -q "$(node_address "$n")/24" ||
    fail "$n does not have $(node_address "$n"): $(on "$n" ip -4 -o addr)"
done
[[ $(hostname) != iashim-* ]] || fail "the machine's own hostname changed to $(hostname)"

status_json() { on head iashim status --json --timeout-s 2; }
# Jobs run as nobody, as a site's users' do.
submit() {  # NAME SECONDS [SBATCH OPTIONS...]: prints the Slurm job id
  local name=$1 seconds=$2
  shift 2
  on head runuser -u nobody -- sbatch --parsable -D "$cluster_dir/out" -J "$name" --gres=shard:2 \
    -o "$cluster_dir/out/$name.out" -e "$cluster_dir/out/$name.err" "$@" \
    --wrap "iashim-fakejob --model resnet18 --seconds $seconds"
}
host_of_slurm_job() {  # SLURM_ID: the host the coordinator shows its connected shim on
  status_json | jq -r --arg id "$1" \
    '[.gpus[] | .jobs[] | select(.batch.job == $id and .connected) | .host] | first // empty'
}
wait_host() {  # SLURM_ID
  local host=""
  for _ in $(seq 60); do
    host=$(host_of_slurm_job "$1" 2>/dev/null || true)
    [[ -n "$host" ]] && { echo "$host"; return 0; }
    sleep 0.5
  done
  fail "Slurm job $1 never registered with the coordinator: $(status_json 2>&1 | head -c 600)"
}

# --- a job on each node, pinned; and one left to job_submit.lua.
id1=$(submit pinned1 12 --iashim -w iashim-node1) || fail "sbatch to iashim-node1 refused"
id2=$(submit pinned2 12 --iashim -w iashim-node2) || fail "sbatch to iashim-node2 refused"
[[ $(wait_host "$id1") == iashim-node1 ]] || fail "job $id1 did not register from iashim-node1"
[[ $(wait_host "$id2") == iashim-node2 ]] || fail "job $id2 did not register from iashim-node2"
say "a shim on each node registered with the head across the bridge"
id3=$(submit chosen 12 --iashim) || fail "sbatch of a job left to job_submit.lua refused"
chosen_host=$(wait_host "$id3")
ran_on=$(on head squeue -h -j "$id3" -o %N)
[[ "$chosen_host" == "$ran_on" ]] || fail "job $id3 ran on '$ran_on' but registered from '$chosen_host'"
# cluster-up.sh makes the choice a preference (the node's name as a feature):
# on an idle cluster the job runs where job_submit.lua said.
preferred=$(grep -o 'prefers node [^ ]* .*\[chosen\]' "$cluster_dir/log/slurmctld.log" | tail -1 | cut -d' ' -f3)
[[ "$preferred" == "$ran_on" ]] ||
  fail "job $id3: job_submit.lua preferred '${preferred:-no node}', it ran on '$ran_on'"
say "job_submit.lua chose $ran_on for job $id3 (a preference), and it ran there"

# Each node's simulated GPUs are its own: their state is in the node's private
# /dev/shm, not the machine's.
on node1 bash -c 'ls /dev/shm' | grep -q . || fail "iashim-node1's /dev/shm holds no simgpu state"
[[ -z "$(ls /dev/shm/iashim-cluster* 2>/dev/null)" ]] ||
  fail "the nodes' simulated GPUs leaked into the machine's own /dev/shm"

# --- a shim without the coordinator's key: never registered, its job runs.
on node1 env -u IASHIM_COORDINATOR_KEY IASHIM_JOB=keyless LD_PRELOAD="$(cat "$cluster_dir/build")/libiashim/libiashim.so" \
  iashim-fakejob --model resnet18 --seconds 3 >"$cluster_dir/out/keyless.out" 2>"$cluster_dir/out/keyless.err" ||
  fail "the job of a shim without the key failed"
status_json | jq -e '[.gpus[].jobs[] | select(.job == "keyless")] | length == 0' >/dev/null ||
  fail "a shim without the coordinator's key registered"
grep -qi "key" "$cluster_dir/out/keyless.err" || fail "the keyless shim did not say why it stayed away: $(cat "$cluster_dir/out/keyless.err")"
say "a shim without the coordinator's key stayed unregistered; its job ran"

# --- a job on both nodes: 8 ranks, each node's 4 GPUs, meeting across the
# fabric. Once the jobs above (whole GPUs at the coordinator) are done, so
# that the coordinator has both nodes to name to job_submit.lua.
for _ in $(seq 60); do  # ~30 s; they run 12 s
  [[ -z "$(on head squeue -h -j "$id1,$id2,$id3" -o %i 2>/dev/null)" ]] && break
  sleep 0.5
done
wide_out=$cluster_dir/out/wide.out
( on head runuser -u nobody -- timeout 90 srun -J wide -N 2 -n 8 --ntasks-per-node=4 --gres=gpu:4 \
    --iashim=opportunistic -D "$cluster_dir/out" "$repo/scripts/slurm-rank.sh" \
    iashim-fakejob --model resnet18 --iterations 40 --quiet >"$wide_out" 2>"$cluster_dir/out/wide.err" ) &
wide=$!
gangs=""
for _ in $(seq 150); do  # ~75 s: its two gangs, while it runs
  gangs=$(status_json 2>/dev/null | jq -r '[.gpus[].jobs[] | select(.job | test("^slurm-[0-9]+\\.0\\.node[01]$")) | "\(.job)@\(.host)"] | unique | join(" ")' || true)
  [[ $(wc -w <<<"$gangs") -eq 2 ]] && break
  kill -0 "$wide" 2>/dev/null || break
  sleep 0.5
done
wait "$wide" || fail "the job on both nodes failed: $(tail -c 600 "$cluster_dir/out/wide.err")"
[[ $(wc -w <<<"$gangs") -eq 2 && "$gangs" == *node0@iashim-node* && "$gangs" == *node1@iashim-node* &&
   $(tr ' ' '\n' <<<"$gangs" | cut -d@ -f2 | sort -u | wc -l) -eq 2 ]] ||
  fail "the job on both nodes was not one gang on each node at the coordinator (saw: '${gangs:-none}')"
[[ -s "$cluster_dir/fabric/collectives" ]] || fail "its ranks did not meet across the fabric ($cluster_dir/fabric)"
# job_submit.lua asked the coordinator for its nodes (both, on two nodes).
grep -q "8 GPUs on 2 nodes, prefers nodes iashim-node[12],iashim-node[12] \[wide\]" "$cluster_dir/log/slurmctld.log" ||
  fail "job_submit.lua did not bind the job on both nodes to the coordinator's: $(grep 'iashim:.*wide' "$cluster_dir/log/slurmctld.log" | tail -2)"
say "a job of 8 ranks ran on both nodes the coordinator named, one gang on each ($gangs), meeting across the fabric"

# --- guaranteed jobs and gangs ask for the node's guaranteed GPUs (a
# count-only GRES, job_submit.lua): a gang, guaranteed or not, given a node
# whose guaranteed shard job would leave it too few pends until that job
# ends, where Slurm 22.05 alone would start it on the shard job's GPU.
gshard=$(submit gshard 8 --iashim -w iashim-node1) || fail "sbatch of gshard refused"
wait_host "$gshard" >/dev/null
on head scontrol show job "$gshard" | grep -q "TresPerNode=.*gres:$slurm_guaranteed_gres:1" ||
  fail "guaranteed job $gshard asks for no $slurm_guaranteed_gres: $(on head scontrol show job "$gshard" | grep -i tres)"
ggang=$(on head runuser -u nobody -- sbatch --parsable -D "$cluster_dir/out" -J ggang --gres=gpu:4 --iashim \
  -w iashim-node1 -o "$cluster_dir/out/ggang.out" -e "$cluster_dir/out/ggang.err" \
  --wrap "iashim-fakejob --model resnet18 --seconds 1") || fail "sbatch of ggang refused"
ogang=$(on head runuser -u nobody -- sbatch --parsable -D "$cluster_dir/out" -J ogang --gres=gpu:4 \
  --iashim=opportunistic -w iashim-node1 -o "$cluster_dir/out/ogang.out" -e "$cluster_dir/out/ogang.err" \
  --wrap "iashim-fakejob --model resnet18 --seconds 1") || fail "sbatch of ogang refused"
sleep 2
on head scontrol show job "$ogang" | grep -q "TresPerNode=.*gres:$slurm_guaranteed_gres:4" ||
  fail "gang $ogang asks for no $slurm_guaranteed_gres: $(on head scontrol show job "$ogang" | grep -i tres)"
[[ $(on head squeue -h -j "$gshard,$ggang,$ogang" -o "%i %T" | sort -n | tr '\n' ' ') == \
  "$gshard RUNNING $ggang PENDING $ogang PENDING " ]] ||
  fail "beside guaranteed $gshard, gangs $ggang and $ogang: $(on head squeue -h -o '%i %T %r %b')"
for _ in $(seq 60); do  # ~30 s: gshard runs 8 s, then each gang 1 s
  [[ -z "$(on head squeue -h -j "$gshard,$ggang,$ogang" -o %i 2>/dev/null)" ]] && break
  sleep 0.5
done
[[ -z "$(on head squeue -h -j "$ggang,$ogang" -o %i 2>/dev/null)" && -s "$cluster_dir/out/ggang.out" &&
  -s "$cluster_dir/out/ogang.out" ]] ||
  fail "gangs $ggang and $ogang did not run once $gshard ended: $(on head squeue -h -o '%i %T %r')"
say "a guaranteed and an opportunistic gang waited for the node's guaranteed shard job to end ($slurm_guaranteed_gres), then ran"

# --- a job that resumes from a checkpoint is moved to a GPU left empty:
# node1's four GPUs each run a job that did not say it can be moved, a fifth
# that did shares one of them, and node2's GPUs stay empty for longer than
# the coordinator's wait (cluster-up.sh: Slurm's backfill interval + 1 s).
fills=()
for i in 1 2 3 4; do
  fills+=("$(submit "fill$i" 25 --iashim=opportunistic --iashim-mem=4GiB -w iashim-node1)") ||
    fail "sbatch of fill$i refused"
done
for id in "${fills[@]}"; do wait_host "$id" >/dev/null; done
mover=$(on head runuser -u nobody -- sbatch --parsable -D "$cluster_dir/out" -J mover --gres=shard:2 \
  --iashim=opportunistic --iashim-mem=4GiB --iashim-movable --requeue --open-mode=append -w iashim-node1 \
  -o "$cluster_dir/out/mover.out" -e "$cluster_dir/out/mover.err" \
  --wrap "iashim-fakejob --model resnet18 --iterations 300 --quiet --checkpoint $cluster_dir/out/mover.ckpt --checkpoint-every-s 1") ||
  fail "sbatch of mover refused"
[[ $(wait_host "$mover") == iashim-node1 ]] || fail "job $mover did not start on iashim-node1"
moved_after=""
for i in $(seq 60); do  # ~30 s: its move, its requeue and its start on node2
  if [[ "$(host_of_slurm_job "$mover" 2>/dev/null || true)" == iashim-node2 ]]; then
    moved_after=$((i / 2))
    break
  fi
  sleep 0.5
done
[[ -n "$moved_after" ]] ||
  fail "job $mover was not moved to iashim-node2: $(grep -a 'moving\|iashim-move-job' "$cluster_dir/log/coordinator.log" | tail -3)"
grep -q "moving slurm-$mover.batch.0 .* to iashim-node2:[0-3], empty for .* asked Slurm to requeue job $mover there" \
  "$cluster_dir/log/coordinator.log" || fail "the coordinator did not log the move of job $mover"
for _ in $(seq 120); do  # ~60 s: the rest of its 300 iterations
  [[ -z "$(on head squeue -h -j "$mover" -o %i 2>/dev/null)" ]] && break
  sleep 0.5
done
summaries=$(grep -c '"summary": true' "$cluster_dir/out/mover.out" || true)
last=$(grep '"summary": true' "$cluster_dir/out/mover.out" | tail -1)
resumed=$(sed -n 's/.*"resumed": \([0-9]*\).*/\1/p' <<<"$last")
iters=$(sed -n 's/.*"iters": \([0-9]*\).*/\1/p' <<<"$last")
[[ "$summaries" -eq 2 && -n "$resumed" && "$resumed" -gt 0 && $((resumed + iters)) -eq 300 ]] ||
  fail "job $mover did not resume where it stopped: $(cat "$cluster_dir/out/mover.out")"
for id in "${fills[@]}"; do
  ! grep -q "moving slurm-$id\." "$cluster_dir/log/coordinator.log" || fail "job $id, not movable, was moved"
done
say "job $mover moved to iashim-node2 within ${moved_after} s and resumed at iteration $resumed; the jobs that did not say they could move stayed"
for _ in $(seq 60); do  # the fill jobs' end (25 s)
  [[ -z "$(on head squeue -h -j "$(IFS=,; echo "${fills[*]}")" -o %i 2>/dev/null)" ]] && break
  sleep 0.5
done

# --- a node dies: it and its job are shown lost, the other node's job runs on
# at its speed; restarted, the node rejoins Slurm and the coordinator.
long1=$(submit long1 40 --iashim -w iashim-node1) ||
  fail "sbatch of long1 refused"
long2=$(submit long2 40 --iashim -w iashim-node2) ||
  fail "sbatch of long2 refused"
wait_host "$long1" >/dev/null
wait_host "$long2" >/dev/null
iteration_ns_of() {  # SLURM_ID: its connected shim's iteration time
  status_json | jq -r --arg id "$1" \
    '[.gpus[] | .jobs[] | select(.batch.job == $id and .connected) | .iteration_ns] | first // 0'
}
mean_iteration_ns() {  # SLURM_ID: the mean of 8 readings 0.5 s apart
  local sum=0 n=0 v
  for _ in $(seq 8); do
    v=$(iteration_ns_of "$1")
    if [[ $v -gt 0 ]]; then sum=$((sum + v)); n=$((n + 1)); fi
    sleep 0.5
  done
  [[ $n -gt 0 ]] || fail "job $1 reported no iteration time"
  echo $((sum / n))
}
since() { awk -v t0="$1" -v t1="$(date +%s.%N)" 'BEGIN { printf "%.1f", t1 - t0 }'; }
# Polls `iashim status --json` every 0.1 s, TRIES times at most, until the jq
# PREDICATE holds; prints the seconds since T0 (nothing when it never held).
status_holds_after() {  # T0 TRIES PREDICATE
  for _ in $(seq "$2"); do
    if status_json | jq -e "$3" >/dev/null 2>&1; then
      since "$1"
      return 0
    fi
    sleep 0.1
  done
}
sleep 2
before=$(mean_iteration_ns "$long1")
stopped_at=$(date +%s.%N)
scripts/cluster-node.sh stop node2 --dir "$cluster_dir" >/dev/null
lost_after=$(status_holds_after "$stopped_at" 100 \
  '[.gpus[] | select(.host == "iashim-node2" and .node_lost_s != null)] | length > 0')
[[ -n "$lost_after" ]] || fail "iashim-node2 was never marked lost: $(status_json | head -c 800)"
status_json | jq -e --arg id "$long2" '[.gpus[].jobs[] | select(.batch.job == $id and .lost)] | length == 1' \
  >/dev/null || fail "the job of iashim-node2 is not shown lost"
on head iashim status | grep -q "NODE LOST" || fail "iashim status does not say the node is lost"
after=$(mean_iteration_ns "$long1")
# The other node's job did not slow (10% for the machine's noise; it may speed up).
(( after * 100 <= before * 110 )) || fail "iashim-node1's job slowed from $before to $after ns per iteration"
say "iashim-node2 stopped: marked lost after ${lost_after} s; iashim-node1's job $((before / 1000000)) -> $((after / 1000000)) ms per iteration"

restarted_at=$(date +%s.%N)
scripts/cluster-node.sh start node2 --dir "$cluster_dir" >/dev/null
# Responding again: not down, and no trailing * ("not responding"). Slurm
# itself learns that the killed job is gone only about a minute later.
up_in_slurm() { [[ "$(on head sinfo -h -n iashim-node2 -o %t | tr -d " ")" =~ ^(idle|mix|alloc)$ ]]; }
for _ in $(seq 60); do
  up_in_slurm && break
  sleep 0.5
done
up_in_slurm || fail "restarted iashim-node2 is not up in Slurm: $(on head sinfo -h -N -o '%n %t %E')"
# A shim on the restarted node is heard: the node is no longer lost.
on node2 env IASHIM_JOB=rejoined LD_PRELOAD="$(cat "$cluster_dir/build")/libiashim/libiashim.so" \
  iashim-fakejob --model resnet18 --seconds 6 >"$cluster_dir/out/rejoined.out" 2>&1 &
rejoined_pid=$!
back=$(status_holds_after "$restarted_at" 50 \
  '[.gpus[] | select(.host == "iashim-node2" and .node_lost_s == null)] | length > 0')
wait "$rejoined_pid" || fail "the job on the restarted iashim-node2 failed: $(tail -3 "$cluster_dir/out/rejoined.out")"
[[ -n "$back" ]] || fail "iashim-node2 is still shown lost after a shim on it said Hello"
say "iashim-node2 restarted: responding to Slurm, and heard by the coordinator ${back} s after slurmd started"

# --- down: nothing left.
scripts/cluster-down.sh --dir "$cluster_dir" >/dev/null || fail "cluster-down.sh failed"
[[ -z "$(ip netns list | grep '^iashim-' || true)" ]] || fail "namespaces left: $(ip netns list)"
[[ ! -e "$cluster_dir" ]] || fail "$cluster_dir left behind"
for p in slurmctld slurmd munged iashim-coordinator; do
  if pgrep -f "$cluster_dir" -a | grep -q "$p"; then fail "$p of the cluster still runs"; fi
done
say "passed in $((SECONDS - started)) s"
