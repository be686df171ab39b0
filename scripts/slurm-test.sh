#!/usr/bin/env bash
# iashim on a real Slurm: slurmctld, slurmd and munged from Debian's packages,
# one node with 2 GPUs, the iashim SPANK plugin and job_submit.lua loaded.
#
# Installs slurm-wlm, munge and jq (and builds iashim via scripts/setup.sh
# unless --build-dir is given), makes /dev/nvidia0 and /dev/nvidia1 character
# devices where they do not exist (there is no GPU: the jobs run iashim-fakejob
# on simgpu, two simulated V100s), writes slurm.conf/gres.conf (Name=gpu
# File=/dev/nvidia[0-1], Name=shard Count=8) in a private directory, starts
# munged, slurmctld, slurmd and iashim-coordinator, then submits the same mix
# of jobs twice: with plain Slurm shards, and with --iashim. Checks:
#   - every --iashim job registered with the coordinator under its Slurm ids,
#     and was deregistered when it ended;
#   - job_submit.lua gave every --iashim job the coordinator's node;
#   - a pair the coordinator predicts as harmful never shares a GPU while
#     another GPU is free;
#   - a refusal by prediction: from what it learned of earlier jobs, the
#     coordinator refuses an opportunistic job next to a guaranteed one it
#     would slow past its target, and places it next to a compatible job;
#   - budgets were sent to, and are in force in, the jobs sharing a GPU;
#   - srun inside an --iashim batch script keeps the batch step's placement;
#   - a 2-task step (srun -n 2 --gres=gpu:2) is one gang (job_submit.lua asks
#     for the node of a gang of 2): each task on its own
#     GPU of it, in task order, as that rank; released when the step ends;
#   - a task that never used the GPU is released by slurmstepd when it ends;
#   - with the coordinator gone, an --iashim job runs as Slurm placed it, with
#     one line in its stderr saying so.
# Prints per-job throughput of both runs side by side. Stops and removes
# everything it started, whatever happens. Needs root. About 3 minutes.
#
#   scripts/slurm-test.sh [--build-dir DIR] [--seconds N] [--user NAME]
#
# Jobs are submitted as NAME (default nobody), as a site's users submit them.
# The body is one block, read whole before any of it runs, so that a script
# edited or updated by git while it runs goes on as it was read.
{
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

build=""
seconds=36
job_user=nobody
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) build="${2:-}"; shift 2
      [[ -x "$build/coordinator/cli/iashim" ]] ||
        { echo "slurm-test.sh: --build-dir '$build' has no built iashim" >&2; exit 2; } ;;
    --seconds) seconds="${2:-}"; shift 2
      [[ "$seconds" =~ ^[0-9]+$ && "$seconds" -ge 20 && "$seconds" -le 600 ]] ||
        { echo "slurm-test.sh: --seconds must be an integer 20..600 (got '$seconds')" >&2; exit 2; } ;;
    --user) job_user="${2:-}"; shift 2
      id -u "$job_user" >/dev/null 2>&1 || { echo "slurm-test.sh: --user '$job_user' is not a user here" >&2; exit 2; } ;;
    -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
    *) echo "slurm-test.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ $(id -u) -eq 0 ]] || { echo "slurm-test.sh: needs root (it starts slurmd and makes device nodes)" >&2; exit 2; }

say() { echo "slurm-test.sh: $*"; }
fail() { echo "slurm-test.sh: FAILED: $*" >&2; exit 1; }

# --- packages and build -------------------------------------------------------
# shellcheck source=slurm_common.sh
source scripts/slurm_common.sh
install_missing_packages slurm-wlm munge jq
build=$(built_tree "$build")
plugin=$build/integrations/slurm/iashim_spank.so
iashim=$build/coordinator/cli/iashim
fakejob=$build/bench/iashim-fakejob
for f in "$plugin" "$iashim" "$fakejob" "$build/coordinator/daemon/iashim-coordinator"; do
  [[ -e "$f" ]] || fail "$f is not built (is libslurm-dev installed? scripts/setup.sh installs it)"
done

# --- a private Slurm --------------------------------------------------------------
work=$(mktemp -d /tmp/iashim-slurm.XXXXXX)
chmod 755 "$work"
mkdir -p "$work"/{state,spool,log,out,munge,munge-key,coordinator}
chmod 1777 "$work/out"  # the jobs' output, written as the job user
node=$(hostname -s)
made_devices=()
pids_file=$work/pids
: >"$pids_file"
coordinator_pid=""
export SLURM_CONF=$work/slurm.conf
export SIMGPU_NAMESPACE="iashim-slurm-$$"
export SIMGPU_DEVICES="2xTesla V100-SXM2-32GB:32GiB:80"
export IASHIM_MODELS_DIR=$repo/bench/data/models
# The jobs' environment (sbatch exports the submitter's): simgpu as the driver.
export LD_LIBRARY_PATH="$build/simgpu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

dump_logs() {
  echo "---- slurmctld.log, job_submit and iashim lines" >&2
  grep -i "job_submit\|lua\|iashim" "$work/log/slurmctld.log" >&2
  for f in "$work"/log/*.log "$work"/out/*; do
    [[ -s "$f" ]] || continue
    echo "---- $f (last 30 lines)" >&2
    tail -n 30 "$f" >&2
  done
}
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  [[ $rc -ne 0 ]] && dump_logs
  squeue -h -o %i 2>/dev/null | xargs -r scancel --quiet --full 2>/dev/null
  for _ in $(seq 20); do
    [[ -z "$(squeue -h -o %i 2>/dev/null)" ]] && break
    sleep 0.5
  done
  if [[ -n "$coordinator_pid" ]]; then kill "$coordinator_pid" 2>/dev/null; fi
  local daemons=()
  for f in "$work"/slurmd.pid "$work"/slurmctld.pid "$work"/munge/munged.pid; do
    [[ -s "$f" ]] && daemons+=("$(cat "$f")")
  done
  # Job steps of this Slurm only: slurmstepd inherits our SLURM_CONF.
  for p in $(pgrep -x slurmstepd); do
    grep -qz "^SLURM_CONF=$SLURM_CONF\$" "/proc/$p/environ" 2>/dev/null && daemons+=("$p")
  done
  while read -r p; do daemons+=("$p"); done <"$pids_file"
  [[ ${#daemons[@]} -gt 0 ]] && kill "${daemons[@]}" 2>/dev/null
  sleep 1
  [[ ${#daemons[@]} -gt 0 ]] && kill -9 "${daemons[@]}" 2>/dev/null
  wait 2>/dev/null
  for d in "${made_devices[@]}"; do rm -f "$d"; done
  rm -f /dev/shm/"$SIMGPU_NAMESPACE"-*
  rm -rf "$work"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The GPUs Slurm schedules: device nodes as the NVIDIA driver makes them
# (major 195), made only where absent and removed afterwards.
for i in 0 1; do
  if [[ ! -e /dev/nvidia$i ]]; then
    mknod -m 666 /dev/nvidia$i c 195 $i
    made_devices+=("/dev/nvidia$i")
  fi
done

free_port() {  # a TCP port nothing listens on
  local p
  for _ in $(seq 50); do
    p=$((20000 + RANDOM % 40000))
    (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null || { echo "$p"; return; }
  done
  fail "no free TCP port"
}
ctld_port=$(free_port)
slurmd_port=$(free_port)
[[ $ctld_port != "$slurmd_port" ]] || slurmd_port=$((ctld_port + 1))
# TCP on loopback: the job user's tasks must reach it (an ipc:// socket would be root's).
coordinator_port=$(free_port)
while [[ $coordinator_port == "$ctld_port" || $coordinator_port == "$slurmd_port" ]]; do
  coordinator_port=$(free_port)
done
export IASHIM_COORDINATOR="tcp://127.0.0.1:$coordinator_port"

{
  slurm_conf_policy
  cat <<EOF
ClusterName=iashimtest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthInfo=socket=$work/munge/munge.socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
PlugStackConfig=$work/plugstack.conf
NodeName=$node NodeAddr=127.0.0.1 CPUs=8 RealMemory=4000 Gres=gpu:2,shard:8 State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
} >"$work/slurm.conf"
# What a site adds (README, "Running on Slurm").
cat >"$work/gres.conf" <<EOF
Name=gpu File=/dev/nvidia[0-1]
Name=shard Count=8
EOF
cat >"$work/plugstack.conf" <<EOF
required $plugin coordinator=$IASHIM_COORDINATOR timeout_s=2
EOF
cp integrations/slurm/job_submit.lua "$work/job_submit.lua"
# The coordinator schedules this node's two GPUs under Slurm's name for it.
cat >"$work/cluster.txt" <<EOF
node $node
gpu 0-1 v100 32GiB name="Tesla V100-SXM2-32GB"
EOF

dd if=/dev/urandom of="$work/munge-key/munge.key" bs=1024 count=1 status=none
chmod 700 "$work/munge-key"
chmod 400 "$work/munge-key/munge.key"
/usr/sbin/munged --force --key-file="$work/munge-key/munge.key" --socket="$work/munge/munge.socket" \
  --pid-file="$work/munge/munged.pid" --log-file="$work/log/munged.log" \
  --seed-file="$work/munge/seed" || fail "munged did not start"
# job_submit.lua runs inside slurmctld and asks the coordinator with this iashim.
IASHIM_BIN=$iashim slurmctld -f "$work/slurm.conf" || fail "slurmctld did not start"
slurmd -f "$work/slurm.conf" || fail "slurmd did not start"
for _ in $(seq 60); do
  [[ "$(sinfo -h -n "$node" -o %t 2>/dev/null)" == idle ]] && break
  sleep 0.5
done
[[ "$(sinfo -h -n "$node" -o %t)" == idle ]] || fail "node $node is not idle: $(sinfo -h -n "$node" -o '%t %E')"
say "Slurm $(sinfo -V | awk '{print $2}') up: node $node, gres $(sinfo -h -n "$node" -o %G); jobs run as $job_user"

start_coordinator() {
  "$build/coordinator/daemon/iashim-coordinator" --listen "$IASHIM_COORDINATOR" \
    --pub "ipc://$work/coordinator/pub" --state-dir "$work/coordinator/state" \
    --cluster "$work/cluster.txt" >>"$work/log/coordinator.log" 2>&1 &
  coordinator_pid=$!
  echo "$coordinator_pid" >>"$pids_file"
  for _ in $(seq 50); do
    "$iashim" status --timeout-s 0.2 >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  fail "the coordinator did not start"
}
stop_coordinator() {
  kill -TERM "$coordinator_pid" 2>/dev/null || true
  wait "$coordinator_pid" 2>/dev/null || true
  coordinator_pid=""
}
status_json() { "$iashim" status --json --timeout-s 2; }

# --- the job mix ------------------------------------------------------------------
# Two guaranteed jobs, then two opportunistic ones; each asks for 2 of the
# node's 8 shards, as a user of plain Slurm sharing would.
mix=(
  "g1 guaranteed resnet50"
  "g2 guaranteed transformer"
  "o1 opportunistic lstm"
  "o2 opportunistic recoder"
)
cat >"$work/job.sh" <<'EOF'
#!/bin/bash
echo "job-gpu: ${CUDA_VISIBLE_DEVICES:-none} ${IASHIM_JOB:-unmanaged}" >&2
echo "job-start: $(date +%s.%N)" >&2
exec "$FAKEJOB" --model "$1" --seconds "$2"
EOF
chmod 755 "$work/job.sh"
export FAKEJOB=$fakejob

# As the job user, keeping this environment (SLURM_CONF, simgpu's settings).
as_user() { runuser -u "$job_user" -- "$@"; }
declare -A job_id  # "<run>/<name>" -> Slurm job id
submit() {  # RUN NAME PRIORITY MODEL [SBATCH OPTIONS...]
  local run=$1 name=$2 prio=$3 model=$4
  shift 4
  local id
  id=$(as_user sbatch --parsable -D "$work/out" -J "$run-$name" --gres=shard:2 -o "$work/out/$run-$name.out" \
       -e "$work/out/$run-$name.err" "$@" "$work/job.sh" "$model" "${job_seconds:-$seconds}") ||
    fail "sbatch of $run-$name refused"
  job_id[$run/$name]=$id
}
state_of() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'; }
wait_running() {  # ID: until it runs (or ended)
  for _ in $(seq 120); do
    case "$(state_of "$1")" in RUNNING|COMPLETED|FAILED|CANCELLED|TIMEOUT) return 0 ;; esac
    sleep 0.5
  done
  fail "job $1 did not start: $(squeue -j "$1" -h -o '%T %R')"
}
wait_registered() {  # SLURM_ID: until the coordinator shows its task connected
  for _ in $(seq 120); do
    status_json 2>/dev/null | jq -e --arg id "$1" \
      '[.gpus[].jobs[] | select(.batch.system == "slurm" and .batch.job == $id and .connected)] | length > 0' \
      >/dev/null && return 0
    sleep 0.5
  done
  fail "Slurm job $1 never registered with the coordinator"
}
wait_all_done() {
  for _ in $(seq $((seconds * 8 + 120))); do
    [[ -z "$(squeue -h -o %i)" ]] && return 0
    sleep 0.5
  done
  fail "jobs still running: $(squeue -h -o '%i %j %T %R' | tr '\n' ';')"
}
gpu_of() { sed -n 's/^job-gpu: \([^ ]*\) .*/\1/p' "$work/out/$1.err" | head -1; }
rate_of() { grep -h '"summary": true' "$work/out/$1.out" 2>/dev/null | sed -n 's/.*"iters_per_s": \([0-9.]*\).*/\1/p'; }
start_of() { sed -n 's/^job-start: //p' "$work/out/$1.err" | head -1; }
# The seconds (wall clock) in which every job of RUN was running: from the
# last start (plus 2 s to settle) to the first end.
overlap_of() {  # RUN -> "FROM TO"
  local run=$1 from=0 to=99999999999 st
  for entry in "${mix[@]}"; do
    read -r name _ _ <<<"$entry"
    st=$(start_of "$run-$name")
    from=$(awk -v a="$from" -v b="$st" 'BEGIN { printf "%.3f", (b + 2 > a) ? b + 2 : a }')
    to=$(awk -v a="$to" -v b="$st" -v s="$seconds" 'BEGIN { printf "%.3f", (b + s < a) ? b + s : a }')
  done
  echo "$from $to"
}
# Mean iterations/s of JOB's per-second lines that fall in [FROM, TO].
window_rate() {  # RUN-NAME FROM TO
  awk -v st="$(start_of "$1")" -v from="$2" -v to="$3" -F'[:,}]' '
    /"t":/ && !/summary/ { t = st + $2; if (t - 1 >= from && t <= to) { s += $4; n++ } }
    END { if (n) printf "%.2f", s / n; else print "-" }' "$work/out/$1.out"
}

run_mix() {  # RUN [SBATCH OPTIONS FOR --iashim]
  local run=$1 managed=$2
  for entry in "${mix[@]}"; do
    read -r name prio model <<<"$entry"
    if [[ $managed == 1 ]]; then
      submit "$run" "$name" "$prio" "$model" --iashim="$prio" --iashim-kind="$model" --iashim-mem=12GiB
      wait_registered "${job_id[$run/$name]}"
    else
      submit "$run" "$name" "$prio" "$model"
      wait_running "${job_id[$run/$name]}"
    fi
    # The harmful-pair check: g2 is asked about while g1 runs on one GPU and
    # the other is free.
    if [[ $managed == 1 && $name == g1 ]]; then
      local g1_gpu
      g1_gpu=$(gpu_of "$run-g1")
      "$iashim" place --dry-run --priority guaranteed --kind transformer --mem 12GiB \
        --gpu "$g1_gpu" >"$work/harm.txt" 2>&1 || true
      say "asked to put g2 (transformer) on g1's GPU $g1_gpu, the coordinator says: $(tr '\n' ' ' <"$work/harm.txt")"
    fi
    if [[ $managed == 1 && $name == o2 ]]; then
      sleep 8  # a few control periods with all four running
      status_json >"$work/status-shared.json" || fail "no status from the coordinator"
    fi
  done
  wait_all_done
}

# Bad option values are refused at submission, with the reason.
if as_user sbatch --iashim=best-effort --wrap true >"$work/bad.txt" 2>&1; then
  fail "sbatch took --iashim=best-effort"
fi
grep -q "expected 'guaranteed' or 'opportunistic'" "$work/bad.txt" ||
  fail "sbatch --iashim=best-effort said: $(cat "$work/bad.txt")"
if as_user sbatch --iashim --iashim-mem=0 --wrap true >"$work/bad.txt" 2>&1; then
  fail "sbatch took --iashim-mem=0"
fi
say "bad values refused at submission: $(grep -m1 'iashim' "$work/bad.txt")"

# --- run 0: each job alone, for its solo throughput ------------------------------------
say "run 0: each model alone, 8 s each"
for entry in "${mix[@]}"; do
  read -r name prio model <<<"$entry"
  job_seconds=8 submit solo "$name" "$prio" "$model"
  wait_all_done
done

# --- run 1: plain Slurm shards ----------------------------------------------------------
start_coordinator
say "run 1: plain Slurm shards (--gres=shard:2), ${seconds}s jobs"
run_mix plain 0
# --- run 2: --iashim -------------------------------------------------------------------
say "run 2: the same jobs with --iashim"
run_mix iashim 1
sleep 1
status_json >"$work/status-after.json" || fail "no status from the coordinator after run 2"

# --- checks -------------------------------------------------------------------------------
for entry in "${mix[@]}"; do
  read -r name prio model <<<"$entry"
  for run in plain iashim; do
    id=${job_id[$run/$name]}
    [[ "$(state_of "$id")" == COMPLETED ]] || fail "$run-$name (job $id) ended $(state_of "$id")"
    [[ -n "$(rate_of "$run-$name")" ]] || fail "$run-$name printed no throughput"
  done
  id=${job_id[iashim/$name]}
  scontrol show job "$id" | grep -q "UserId=$job_user(" ||
    fail "iashim-$name did not run as $job_user: $(scontrol show job "$id" | grep -o 'UserId=[^ ]*')"
  # job_submit.lua: the coordinator's node became the job's required node.
  req=$(scontrol show job "$id" | sed -n 's/.*ReqNodeList=\([^ ]*\).*/\1/p')
  [[ "$req" == "$node" ]] || fail "iashim-$name: ReqNodeList '$req', want '$node' (job_submit.lua)"
  req=$(scontrol show job "${job_id[plain/$name]}" | sed -n 's/.*ReqNodeList=\([^ ]*\).*/\1/p')
  [[ "$req" == "(null)" ]] || fail "plain-$name: ReqNodeList '$req': job_submit.lua touched a plain job"
  # Registered under its Slurm ids (seen connected above), with IASHIM_JOB as the coordinator named it.
  grep -q "^job-gpu: [0-9] slurm-$id.batch.0$" "$work/out/iashim-$name.err" ||
    fail "iashim-$name: not placed as slurm-$id.batch.0: $(head -3 "$work/out/iashim-$name.err")"
  grep -q "^job-gpu: [0-9]* unmanaged$" "$work/out/plain-$name.err" ||
    fail "plain-$name: the plugin touched a job without --iashim"
done
say "every --iashim job registered as slurm-<job>.batch.0 with its Slurm ids; job_submit.lua set ReqNodeList=$node"

# Deregistered when they ended.
left=$(jq -r '[.gpus[].jobs[] | select(.batch.system == "slurm") | .job] | join(" ")' "$work/status-after.json")
[[ -z "$left" ]] || fail "still registered after their jobs ended: $left"
say "every --iashim job was deregistered when it ended"

# The harmful pair: the coordinator would not put g2 on g1's GPU, so with the
# other GPU free it must not have.
g1=$(gpu_of iashim-g1)
g2=$(gpu_of iashim-g2)
if grep -q '^placed' "$work/harm.txt"; then
  fail "the coordinator did not predict g1+g2 harmful, so the check means nothing: $(cat "$work/harm.txt")"
fi
[[ "$g1" != "$g2" ]] || fail "the harmful pair g1 and g2 share GPU $g1 while another was free"
say "harmful pair (resnet50 + transformer, both guaranteed): GPU $g1 and GPU $g2 (plain shards: GPU $(gpu_of plain-g1) and GPU $(gpu_of plain-g2))"

# Budgets: on each shared GPU the guaranteed jobs run unthrottled, and an
# opportunistic job next to a guaranteed one past its slowdown target has been
# sent a budget that its shim reports in force (share < 1). At least one must
# have been: the mix is chosen so that sharing hurts.
jq -r '.gpus[] | select((.jobs | length) > 1) | .id as $gpu | .jobs[] |
  "GPU \($gpu) \(.job) \(.priority) share=\(.share) slowdown=\(.slowdown // "?") target=\(.slowdown_target) budget_age_ms=\(.budget_age_ms)"' \
  "$work/status-shared.json" >"$work/shared.txt"
[[ -s "$work/shared.txt" ]] || fail "no GPU was shared in run 2: $(jq -c '.gpus' "$work/status-shared.json")"
throttled=$(jq '[.gpus[] | select((.jobs | length) > 1) | .jobs[] |
  select(.priority == "opportunistic" and .budget_age_ms > 0 and .share < 1)] | length' "$work/status-shared.json")
unthrottled_g=$(jq '[.gpus[].jobs[] | select(.priority == "guaranteed" and .share != 1)] | length' \
  "$work/status-shared.json")
[[ "$unthrottled_g" == 0 ]] || fail "a guaranteed job was throttled: $(cat "$work/shared.txt")"
[[ "$throttled" -ge 1 ]] || fail "no opportunistic job was given a budget: $(cat "$work/shared.txt")"
say "budgets in force on the shared GPUs ($throttled opportunistic job(s) throttled):"
sed 's/^/    /' "$work/shared.txt"

# --- a refusal by prediction ------------------------------------------------------------
# Not a rule this time: what the coordinator learned. First, history: earlier
# jobs (another user's, started here with `iashim run` on a pinned GPU) of two
# synthetic kinds (bench/data/models/synthetic): two memory-bound jobs on
# GPU 0 (in simgpu they share DRAM bandwidth: about 0.58 each), a memory-bound
# and a compute-bound one on GPU 1 (about 0.87 each), after each kind alone.
models=$repo/bench/data/models/synthetic
history_pids=()
history() {  # NAME KIND GPU SECONDS
  "$iashim" run --simgpu --job "$1" --priority opportunistic --kind "$2" --gpu "$3" --mem 4GiB -- \
    "$fakejob" --model "$models/$2.model" --seconds "$4" >"$work/out/$1.out" 2>"$work/out/$1.err" &
  history_pids+=($!)
  echo "$!" >>"$pids_file"
}
wait_history() {
  for p in "${history_pids[@]}"; do wait "$p" || fail "history job failed: $(tail -n 3 "$work"/out/hist-*.err)"; done
  history_pids=()
}
say "history for the learned model: memory-bound and compute-bound jobs alone, then paired (22 s)"
# 6 s alone: the solo baseline is stored under the kernel set's fingerprint
# once no new kernel has appeared for 3 s, at a control tick (every 1 s); with
# 4 s a job under load could end before that tick (seen once in CI).
history hist-solo-mem membound 0 6
history hist-solo-comp computebound 1 6
wait_history
history hist-mm-a membound 0 16
history hist-mm-b membound 0 16
history hist-mc-m membound 1 16
history hist-mc-c computebound 1 16
wait_history
"$iashim" status --pairs --timeout-s 2 | sed -n '/^learned pairs/,$p' >"$work/learned.txt"
grep -q "^membound *membound" "$work/learned.txt" || fail "the coordinator learned no memory-bound pair: $(cat "$work/learned.txt")"
# Then, through Slurm: a guaranteed memory-bound job and an opportunistic
# compute-bound one, each on an empty GPU; where may a second memory-bound job go?
job_seconds=14 submit pred guar guaranteed "$models/membound.model" --iashim=guaranteed --iashim-kind=membound --iashim-mem=4GiB
wait_registered "${job_id[pred/guar]}"
job_seconds=14 submit pred comp opportunistic "$models/computebound.model" --iashim=opportunistic --iashim-kind=computebound --iashim-mem=4GiB
wait_registered "${job_id[pred/comp]}"
guar_gpu=$(gpu_of pred-guar)
comp_gpu=$(gpu_of pred-comp)
[[ "$guar_gpu" != "$comp_gpu" ]] || fail "two jobs share GPU $guar_gpu while the other was free"
sleep 2  # a few telemetry windows: the kernel mixes of both are known
"$iashim" place --dry-run --priority opportunistic --kind membound --mem 4GiB --gpu "$guar_gpu" \
  >"$work/refused.txt" 2>&1 || true
say "asked to put a memory-bound opportunistic job next to the guaranteed memory-bound job (GPU $guar_gpu): $(tr '\n' ' ' <"$work/refused.txt")"
if grep -q '^placed' "$work/refused.txt"; then
  fail "the coordinator would put a memory-bound job next to the guaranteed one, which it learned slows it to $(awk '/^membound *membound/ {print $5}' "$work/learned.txt")"
fi
grep -Eq 'would not pay|slowdown target' "$work/refused.txt" ||
  fail "refused, but not by prediction: $(cat "$work/refused.txt")"
job_seconds=8 submit pred mem opportunistic "$models/membound.model" --iashim=opportunistic --iashim-kind=membound --iashim-mem=4GiB
wait_registered "${job_id[pred/mem]}"
mem_gpu=$(gpu_of pred-mem)
[[ "$mem_gpu" == "$comp_gpu" ]] ||
  fail "the memory-bound job went to GPU $mem_gpu, next to the guaranteed memory-bound job, not GPU $comp_gpu"
wait_all_done
say "refusal by prediction: learned $(awk '/^membound *membound/ {print "memory-bound next to memory-bound " $4 " measured, " $5 " predicted"}' "$work/learned.txt");" \
  "the new memory-bound job was kept off GPU $guar_gpu (guaranteed memory-bound) and placed on GPU $mem_gpu, next to the compute-bound job"

# --- a nested step: srun inside an --iashim batch script keeps the batch step's placement
nest=$(as_user sbatch --parsable -D "$work/out" -J iashim-nest --gres=shard:2 --iashim=opportunistic --iashim-kind=lstm \
  --iashim-mem=12GiB -o "$work/out/nest.out" -e "$work/out/nest.err" \
  --wrap "srun --gres=shard:2 $work/job.sh lstm 4") || fail "sbatch of the nested job refused"
wait_all_done
[[ "$(state_of "$nest")" == COMPLETED ]] || fail "nested job $nest ended $(state_of "$nest")"
grep -q "^job-gpu: [0-9] slurm-$nest.batch.0$" "$work/out/nest.err" ||
  fail "srun in job $nest did not keep its batch step's placement: $(head -3 "$work/out/nest.err")"
say "srun inside an --iashim batch script ran under the batch step's placement ($(grep '^job-gpu' "$work/out/nest.err"))"

# --- release: a task that never touched CUDA (so its shim never said Goodbye)
# must still leave the coordinator when it ends: slurmstepd releases it.
idle=$(as_user sbatch --parsable -D "$work/out" -J iashim-idle --gres=shard:1 --iashim=opportunistic \
  -o "$work/out/idle.out" -e "$work/out/idle.err" --wrap "sleep 3") || fail "sbatch of the idle job refused"
wait_running "$idle"
sleep 1
status_json | jq -e --arg id "$idle" '[.gpus[].jobs[] | select(.batch.job == $id)] | length == 1' >/dev/null ||
  fail "idle job $idle was not registered while it ran"
wait_all_done
sleep 1
status_json | jq -e --arg id "$idle" '[.gpus[].jobs[] | select(.batch.job == $id)] | length == 0' >/dev/null ||
  fail "idle job $idle is still registered after it ended: the release did not happen"
say "a task that never used the GPU was released by slurmstepd when it ended (job $idle)"

# --- a multi-task step: one gang for the step, each task on its own GPU of it -----------
# Each task is one rank of a data-parallel job (torchrun's variables from
# Slurm's): the ranks meet in an all-reduce every iteration.
cat >"$work/rank.sh" <<'EOF'
#!/bin/bash
echo "rank-gpu: $SLURM_LOCALID ${CUDA_VISIBLE_DEVICES:-none} ${IASHIM_JOB:-unmanaged} ${IASHIM_RANK:-none}" >&2
export RANK=$SLURM_PROCID LOCAL_RANK=0 WORLD_SIZE=$SLURM_NTASKS MASTER_ADDR=127.0.0.1 MASTER_PORT=$SLURM_JOB_ID
exec "$FAKEJOB" --model resnet18 --seconds "$1"
EOF
chmod 755 "$work/rank.sh"
as_user srun -D "$work/out" -J iashim-gang -n 2 --gres=gpu:2 --iashim=guaranteed --iashim-mem=8GiB \
  -o "$work/out/gang.out" -e "$work/out/gang.err" "$work/rank.sh" 8 &
srun_pid=$!
echo "$srun_pid" >>"$pids_file"
gang=""
for _ in $(seq 60); do
  gang=$(squeue -h -n iashim-gang -o %i | head -1)
  [[ -n "$gang" ]] && break
  sleep 0.5
done
[[ -n "$gang" ]] || fail "the 2-task step never started"
# job_submit.lua asked the coordinator for a gang of 2 and required the node it named.
req=$(scontrol show job "$gang" | grep -o 'ReqNodeList=[^ ]*' | cut -d= -f2)
[[ "$req" == "$node" ]] || fail "step $gang: ReqNodeList '$req', want '$node' (job_submit.lua)"
grep -q "a gang of 2 GPUs, goes to node $node" "$work/log/slurmctld.log" ||
  fail "job_submit.lua did not ask for step $gang's job as a gang of 2 ($(scontrol show job "$gang" | grep -o 'TresPerNode=[^ ]*'))"
gang_status=""
for _ in $(seq 60); do
  gang_status=$(status_json 2>/dev/null | jq -c --arg id "slurm-$gang.0" \
    '[.gpus[].jobs[] | select(.job == $id)] | first // empty' || true)
  [[ $(jq -r '[.ranks[]? | select(.connected and .iteration_ns > 0)] | length' <<<"${gang_status:-null}" 2>/dev/null) == 2 ]] && break
  sleep 0.5
done
[[ $(jq -r '.gpus | length' <<<"${gang_status:-null}") == 2 ]] ||
  fail "step $gang was not placed as one job on 2 GPUs: ${gang_status:-not registered}"
[[ $(jq -r '[.ranks[] | select(.connected and .iteration_ns > 0)] | length' <<<"$gang_status") == 2 ]] ||
  fail "step $gang's two tasks did not both report as its ranks: $gang_status"
# Bounded: a rank left waiting in an all-reduce would hold the step for ever.
for _ in $(seq 120); do
  kill -0 "$srun_pid" 2>/dev/null || break
  sleep 0.5
done
kill -0 "$srun_pid" 2>/dev/null && fail "the 2-task step did not end within 60 s: $(tail -n 5 "$work/out/gang.out")"
wait "$srun_pid" || fail "the 2-task step failed: $(tail -n 5 "$work/out/gang.err")"
# The file its ranks agreed on when to stop through (bench/data/models/README.md).
rm -f "/dev/shm/fakejob-127.0.0.1-$gang.stop"
# Each task on its own GPU of the gang, in task order, with its rank.
mapfile -t gang_gpus < <(jq -r '.gpus[]' <<<"$gang_status")
for task in 0 1; do
  grep -q "^rank-gpu: $task ${gang_gpus[$task]} slurm-$gang.0 $task$" "$work/out/gang.err" ||
    fail "task $task of step $gang is not on GPU ${gang_gpus[$task]} as rank $task: $(grep '^rank-gpu' "$work/out/gang.err")"
done
sleep 1
status_json | jq -e --arg id "slurm-$gang.0" '[.gpus[].jobs[] | select(.job == $id)] | length == 0' >/dev/null ||
  fail "step $gang's gang is still registered after the step ended"
say "a 2-task step ran as one gang on GPUs ${gang_gpus[*]} (task i on GPU i of it, rank i), released when the step ended"

# --- fail-open: no coordinator ----------------------------------------------------------
stop_coordinator
job_seconds=4 submit nocoord g1 guaranteed resnet50 --iashim=guaranteed --iashim-kind=resnet50
wait_all_done
id=${job_id[nocoord/g1]}
[[ "$(state_of "$id")" == COMPLETED ]] || fail "with no coordinator, job $id ended $(state_of "$id")"
lines=$(grep -c '^iashim:' "$work/out/nocoord-g1.err" || true)
[[ "$lines" == 1 ]] || fail "with no coordinator, want one iashim line in stderr, got $lines: $(cat "$work/out/nocoord-g1.err")"
grep -q "^job-gpu: 0 unmanaged$" "$work/out/nocoord-g1.err" ||
  fail "with no coordinator the job did not run as Slurm placed it: $(cat "$work/out/nocoord-g1.err")"
say "no coordinator: job $id ran as Slurm placed it, stderr: $(grep '^iashim:' "$work/out/nocoord-g1.err")"

# --- the table ---------------------------------------------------------------------------
read -r plain_from plain_to <<<"$(overlap_of plain)"
read -r managed_from managed_to <<<"$(overlap_of iashim)"
span() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", b - a }'; }
echo
echo "Per-job throughput while all four jobs ran (iterations/s; plain: $(span "$plain_from" "$plain_to") s," \
  "--iashim: $(span "$managed_from" "$managed_to") s of overlap), and the GPU each ran on."
echo "simgpu: two simulated V100s; ${seconds} s jobs, --gres=shard:2 each."
echo "Slowdown: against the job alone (solo column)."
printf '| %-4s | %-13s | %-11s | %-6s | %-16s | %-8s | %-16s | %-8s |\n' job priority model solo \
  "plain shards" slowdown "--iashim" slowdown
printf '|%s|%s|%s|%s|%s|%s|%s|%s|\n' ------ --------------- ------------- -------- \
  ------------------ ---------- ------------------ ----------
slowdown() { awk -v s="$1" -v r="$2" 'BEGIN { if (s > 0 && r > 0) printf "%.0f%%", 100 * (s / r - 1); else print "-" }'; }
for entry in "${mix[@]}"; do
  read -r name prio model <<<"$entry"
  solo=$(window_rate "solo-$name" "$(awk -v s="$(start_of "solo-$name")" 'BEGIN { printf "%.3f", s + 2 }')" 99999999999)
  p=$(window_rate "plain-$name" "$plain_from" "$plain_to")
  m=$(window_rate "iashim-$name" "$managed_from" "$managed_to")
  printf '| %-4s | %-13s | %-11s | %-6s | %-16s | %-8s | %-16s | %-8s |\n' "$name" "$prio" "$model" \
    "$solo" "GPU $(gpu_of "plain-$name"): $p" "$(slowdown "$solo" "$p")" \
    "GPU $(gpu_of "iashim-$name"): $m" "$(slowdown "$solo" "$m")"
done
echo
say "passed"
exit
}
