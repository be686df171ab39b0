#!/usr/bin/env bash
# A live replay of a segment of a Gavel-format trace on the cluster of
# scripts/cluster-up.sh (N nodes x 4 simulated V100s), through sbatch: first
# with plain Slurm sharing (--gres=shard:2, two jobs per GPU, placed by
# Slurm), then the same jobs with --iashim. The same segment goes through
# iashim-clustersim with simgpu's own pair throughputs as ground truth
# (iashim-simgpu-throughputs), and the report puts the simulated and the live
# figures side by side. It goes through iashim-clustersim once more with
# Gavel's measured V100 pairs as ground truth: what the two policies would
# give where jobs interfere as a real V100 makes them (simulated only).
#
#   scripts/live-replay.sh --trace FILE [--jobs K] [--start N] [--time-scale X]
#                          [--nodes N] [--guaranteed-every M] [--max-gpus-per-job G] [--modes LIST]
#                          [--max-minutes M] [--out DIR] [--build-dir DIR] [--sim-only]
#                          [--queue reserve|greedy|slurm] [--gangs-take-busy-gpus yes|no|auto]
#                          [--status-every S] [--move-jobs yes|no]
#
#   --trace FILE          a Gavel-format trace (bench/data/gavel/msr-seed0/*.trace)
#   --jobs K              jobs in the segment, 1..200 (default 40)
#   --start N|auto        the segment starts at the trace's N-th job of at most G GPUs;
#                         auto (default): the first segment (at 0, K, 2K, ...)
#                         loading the cluster to within a quarter of its GPUs
#                         (scripts/replay/pick_segment.awk says why)
#   --time-scale X|auto   arrivals and lengths divided by X, 1..1e7; auto
#                         (default): the segment, run alone, spans 200 s
#   --nodes N             compute nodes, 1..8 (default 3)
#   --guaranteed-every M  every M-th job is guaranteed, the rest opportunistic;
#                         0: none (default 4)
#   --max-gpus-per-job G  jobs of up to G GPUs, 1..the cluster's (nodes x 4),
#                         are replayed (default: the cluster's); one wider
#                         than a node only in whole nodes (8 = 2 nodes' 4);
#                         the others are left out and counted
#   --modes LIST          plain,iashim (default both, in that order)
#   --max-minutes M       a mode still running after M minutes is cancelled and
#                         reported as failed, 1..120 (default 12)
#   --out DIR             where the report goes (default build/live-replay)
#   --build-dir DIR       a built tree (default: scripts/setup.sh builds build/)
#   --sim-only            the segment and iashim-clustersim only: no cluster,
#                         no root (the live columns stay empty)
#   --queue MODEL         iashim-clustersim's queue (its --help): reserve (the
#                         oldest waiting gang reserves a node), greedy (no
#                         reservation), slurm (default: Slurm with no time
#                         limits, backfilling every 2 s as the cluster's does;
#                         README, "A live trace replay", multi-GPU jobs)
#   --gangs-take-busy-gpus yes|no|auto
#                         with --queue slurm: whether the simulator gives a
#                         gang GPUs whose shards one-GPU jobs still use, as
#                         Slurm 22.05 does (iashim-clustersim's flag of that
#                         name); auto (default): yes when the Slurm a live
#                         run here uses is 22.05 (Debian's, where it was
#                         seen): the installed slurmctld, or without one
#                         (--sim-only) the slurm-wlm apt would install, as
#                         cluster-up.sh does; yes also starts the coordinator
#                         with --join-busy-gpus (cluster-up.sh)
#   --status-every S      seconds between the --iashim run's status samples,
#                         1..60 (default 5; 1 to follow a control loop's
#                         transients, at some CPU to the 2-core host)
#   --move-jobs yes|no    under --iashim, the coordinator moves a slowed one-GPU
#                         opportunistic job to a GPU left empty (cluster-up.sh
#                         --move-jobs: Slurm requeues it there); those jobs are
#                         submitted with --requeue and resume from a checkpoint
#                         (iashim-fakejob --checkpoint), and the simulator's
#                         iashim moves them too (sim-migrate/). Default no
#
# Each job of the segment is one of the trace's jobs of up to G GPUs (larger
# ones, and those wider than a node but not in whole nodes, are left out and
# counted: a node has 4): its arrival and its length
# alone on its GPUs (Gavel's steps / Gavel's V100 throughput at its scale)
# divided by X, running the fake job profile of its model family
# (scripts/replay/segment.awk) for as many iterations as last that long alone
# on simgpu, so sharing lengthens it. A job of k > 1 GPUs is a gang: one
# Slurm step of k tasks (srun -N 1 -n k --gres=gpu:k; wider than a node,
# srun -N k/4 -n k --gres=gpu:4, Slurm's choice of nodes in both modes, its
# ranks meeting across simgpu's fabric, cluster-up.sh), each a data-parallel
# rank (torchrun's variables from Slurm's), asking whole GPUs; Slurm 22.05 may
# give them while one-GPU jobs' shards are in use, and then plain Slurm runs
# the gang beside those jobs, and so does --iashim's coordinator, under its
# control loop, on the node its dry run chose by predicted interference
# (--join-busy-gpus; a guaranteed gang waits for a guaranteed job there to
# end, and any gang for memory there). Under --iashim every one-GPU job asks
# the memory its profile allocates (--iashim-mem; bench/data/models/README.md:
# 1-9 GiB of simgpu's 32 GiB V100), as a user states what their job uses; a
# gang asks its GPUs whole, so no job joins them later, as Slurm 22.05 gives
# no shard of them, and its quota is what the jobs there leave. Both
# simulated so (--gangs-take-busy-gpus --job-memory-shares
# job-memory-shares.tsv). Jobs run as nobody.
# Writes to the out dir:
#   jobs.tsv, segment.trace     the segment (segment.trace: for iashim-clustersim)
#   simgpu-throughputs.json     simgpu's solo and pair steps/s (ground truth)
#   job-memory-shares.tsv       each profile's Gavel job type and the share of
#                               a GPU's memory its one-GPU jobs ask
#                               (iashim-clustersim)
#   sim/                        iashim-clustersim's output (exclusive, firstfit, iashim,
#                               and oracle: iashim's placement with perfect predictions)
#   sim-unprotected/            the same with no job guaranteed (what protection costs)
#   sim-migrate/                iashim as in sim/, with every slowed one-GPU
#                               opportunistic job moved to a GPU that empties
#                               (a what-if for a real cluster, 300 s a move; live
#                               only --move-jobs moves jobs)
#   sim-v100/                   the same with Gavel's measured V100 pairs as ground truth
#   live-<mode>.tsv             per job: id priority arrival start end solo gpus iter
#                               (gpus: node:index[,index...], a job on
#                               several nodes node:...+node:...; iter: the
#                               seconds its iterations took by its own clock)
#   live-<mode>-logs/           each job's stdout and stderr, and sbatch's;
#                               slurmctld.log (node choices, allocations)
#   status-iashim/              `iashim status --json` every S s (--status-every) of the
#                               --iashim run
#   live-iashim-logs/coordinator.log   the coordinator's log of the --iashim run
#   summary.csv                 mode,source,metric,value
#   report.txt                  the table (also printed)
#   jct.png                     JCT per job, live and simulated, both modes
# Takes its own cluster (state in /run/iashim-replay) up and down. Root only.
# Exit status: 0 done; 1 a mode failed (a job failed, or time ran out); 2 a
# bad argument or a failed setup.
# The body is one block, read whole before any of it runs, so that a script
# edited or updated by git while it runs goes on as it was read.
{
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
export IASHIM_CLUSTER_DIR=/run/iashim-replay
# shellcheck source=cluster_common.sh
source scripts/cluster_common.sh
# shellcheck source=replay/metrics.sh
source scripts/replay/metrics.sh

trace="" jobs=40 start=auto scale=auto nodes=3 every=4 max_gpus="" modes=plain,iashim max_minutes=12 out="" build=""
status_every=5
live=1
queue=slurm
gangs_busy=auto
move_jobs=no
need_value() { [[ $# -ge 2 && -n "$2" ]] || die "$1 needs a value (see --help)"; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --sim-only) live=0; shift; continue ;;
    --trace) need_value "$@"; trace=$2 ;;
    --jobs) need_value "$@"; jobs=$2 ;;
    --start) need_value "$@"; start=$2 ;;
    --time-scale) need_value "$@"; scale=$2 ;;
    --nodes) need_value "$@"; nodes=$2 ;;
    --guaranteed-every) need_value "$@"; every=$2 ;;
    --max-gpus-per-job) need_value "$@"; max_gpus=$2 ;;
    --modes) need_value "$@"; modes=$2 ;;
    --max-minutes) need_value "$@"; max_minutes=$2 ;;
    --out) need_value "$@"; out=$2 ;;
    --build-dir) need_value "$@"; build=$2 ;;
    --queue) need_value "$@"; queue=$2 ;;
    --gangs-take-busy-gpus) need_value "$@"; gangs_busy=$2 ;;
    --status-every) need_value "$@"; status_every=$2 ;;
    --move-jobs) need_value "$@"; move_jobs=$2 ;;
    -h|--help) sed -n '2,/^set -euo pipefail/p' "$0" | sed '$d'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
  shift 2
done
[[ -n "$trace" ]] || die "--trace is required (e.g. bench/data/gavel/msr-seed0/b436b2.trace)"
[[ -f "$trace" && -r "$trace" ]] || die "--trace '$trace' is not a readable file"
in_range() {  # NAME VALUE LOW HIGH: an integer in [LOW, HIGH]
  if [[ ! "$2" =~ ^[0-9]+$ ]] || (( 10#$2 < $3 || 10#$2 > $4 )); then
    die "$1 must be an integer $3..$4 (got '$2')"
  fi
}
in_range --jobs "$jobs" 1 200
[[ "$start" == auto ]] || in_range --start "$start" 0 1000000
in_range --nodes "$nodes" 1 8
in_range --guaranteed-every "$every" 0 1000
node_gpus=4  # SIMGPU_DEVICES in cluster-up.sh
max_gpus=${max_gpus:-$((nodes * node_gpus))}
in_range --max-gpus-per-job "$max_gpus" 1 $((nodes * node_gpus))
in_range --max-minutes "$max_minutes" 1 120
in_range --status-every "$status_every" 1 60
if [[ "$scale" != auto ]] &&
   { [[ ! "$scale" =~ ^[0-9]+(\.[0-9]+)?$ ]] || ! awk -v x="$scale" 'BEGIN { exit !(x >= 1 && x <= 1e7) }'; }; then
  die "--time-scale must be auto or a number 1..10000000 (got '$scale')"
fi
[[ "$queue" =~ ^(reserve|greedy|slurm)$ ]] || die "--queue must be reserve, greedy or slurm (got '$queue')"
[[ "$gangs_busy" =~ ^(yes|no|auto)$ ]] ||
  die "--gangs-take-busy-gpus must be yes, no or auto (got '$gangs_busy')"
[[ "$move_jobs" =~ ^(yes|no)$ ]] || die "--move-jobs must be yes or no (got '$move_jobs')"
[[ "$move_jobs" == no || "$queue" == slurm ]] || die "--move-jobs yes needs --queue slurm (Slurm requeues)"
IFS=, read -r -a mode_list <<<"$modes"
[[ ${#mode_list[@]} -ge 1 ]] || die "--modes is empty (plain, iashim or both)"
for m in "${mode_list[@]}"; do
  [[ "$m" == plain || "$m" == iashim ]] || die "--modes: unknown mode '$m' (plain, iashim)"
done
# shellcheck source=slurm_common.sh
source scripts/slurm_common.sh
queue_flags=(--queue "$queue")
# The cluster's guaranteed --iashim jobs ask their nodes for guaranteed GPUs
# (cluster-up.sh's count-only GRES, job_submit.lua): so does the simulator's.
[[ "$queue" != slurm ]] || queue_flags+=(--backfill-interval "$slurm_backfill_interval_s" --guaranteed-gres)
# A one-GPU job asks for half a GPU's time: two of a node's 16 shards (4 a
# GPU). Under --iashim its memory is what its profile allocates, of simgpu's
# V100.
gpu_mem_mib=32768  # SIMGPU_DEVICES in cluster-up.sh
if [[ $live -eq 1 ]]; then
  [[ $(id -u) -eq 0 ]] || die "needs root (scripts/cluster-up.sh); --sim-only does not"
  # Slurm too (cluster-up.sh would install it later): auto below reads its version.
  install_missing_packages jq gnuplot-nox slurm-wlm munge
fi
# The Slurm a live run here uses, as "VERSION WHERE": the installed
# slurmctld's ("22.05.8 installed"), else the slurm-wlm apt would install for
# cluster-up.sh ("22.05.8-4+deb12u3 apt"), so that --sim-only on a machine
# without Slurm simulates what a live run on it would do; "- none" when
# neither is known.
slurm_in_use() {
  local v
  v=$(slurmctld -V 2>/dev/null | awk '{ print $2 }' || true)
  if [[ -n "$v" ]]; then
    echo "$v installed"
    return
  fi
  v=$(apt-cache policy slurm-wlm 2>/dev/null |
    awk '$1 == "Candidate:" && $2 != "(none)" { print $2 }' || true)
  if [[ -n "$v" ]]; then echo "$v apt"; else echo "- none"; fi
}
if [[ "$gangs_busy" == auto ]]; then
  gangs_busy=no
  if [[ "$queue" == slurm ]]; then
    read -r version where <<<"$(slurm_in_use)"
    [[ "$version" != 22.05.* ]] || gangs_busy=yes
    case $where in
      installed) seen="Slurm $version" ;;
      apt) seen="Slurm $version, not installed: the version apt would install" ;;
      *) seen="Slurm unknown here" ;;
    esac
    say "--gangs-take-busy-gpus auto: $gangs_busy ($seen)"
  fi
fi
[[ "$gangs_busy" == no || "$queue" == slurm ]] || die "--gangs-take-busy-gpus yes needs --queue slurm"
[[ "$gangs_busy" == no ]] || queue_flags+=(--gangs-take-busy-gpus --cpus-per-node "$cluster_node_cpus")
for tool in jq gnuplot; do
  command -v "$tool" >/dev/null || die "$tool is not installed (scripts/setup.sh installs it)"
done
build=$(built_tree "$build")
for f in bench/iashim-fakejob bench/iashim-gpu-energy bench/predict/iashim-simgpu-throughputs \
         coordinator/clustersim/iashim-clustersim; do
  [[ -x "$build/$f" ]] || die "$build/$f is not built (scripts/setup.sh builds it)"
done
out=${out:-$build/live-replay}
mkdir -p "$out/sim" "$out/sim-unprotected" "$out/sim-migrate" "$out/sim-v100"
out=$(cd "$out" && pwd)
gpus=$((nodes * node_gpus))

# --- the segment ----------------------------------------------------------------------
models=$repo/bench/data/models
# simgpu's throughputs follow from the tool (simgpu's model is built into it)
# and the profiles alone, and take 2 s to compute: kept in the build tree under
# a digest of both, so a survey's 128 segments compute them once.
throughputs_tool=$build/bench/predict/iashim-simgpu-throughputs
throughputs_key=$( {
  sha256sum <"$throughputs_tool"
  (cd "$models" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
} | sha256sum | cut -c1-16)
compute_throughputs() {  # FILE: written whole (renamed into place), for a run beside this one
  "$throughputs_tool" --models "$models" --out "$1.$$" ||
    { rm -f "$1.$$"; die "iashim-simgpu-throughputs failed"; }
  mv -f "$1.$$" "$1"
}
throughputs_cache=$build/replay-cache/simgpu-throughputs-$throughputs_key.json
if [[ ! -s "$throughputs_cache" ]]; then
  # A build tree this run cannot write to (another user's) keeps nothing.
  mkdir -p "$build/replay-cache" 2>/dev/null && [[ -w "$build/replay-cache" ]] ||
    throughputs_cache=$out/simgpu-throughputs.json
  compute_throughputs "$throughputs_cache"
fi
[[ "$throughputs_cache" -ef "$out/simgpu-throughputs.json" ]] || cp "$throughputs_cache" "$out/simgpu-throughputs.json"
solo_rates() {  # THROUGHPUTS_JSON: "<job type>\t<GPUs>\t<V100 steps/s alone on them>"
  jq -r '.v100 | to_entries[] | select(.value.null != null)
         | (.key | capture("^\\(\u0027(?<t>.*)\u0027, (?<k>[0-9]+)\\)$")) as $m
         | "\($m.t)\t\($m.k)\t\(.value.null)"' "$1"
}
solo_rates "$repo/bench/data/gavel/simulation_throughputs.json" >"$out/gavel-solo.tsv"
# profile, its Gavel job type, GPUs, simgpu's steps/s for it alone on them.
awk -F'\t' -v OFS='\t' 'NR == FNR { profile_of[$2] = $1; next }
  $1 in profile_of { print profile_of[$1], $1, $2, $3 }' \
  <(sed -n "s/^\([a-z0-9_]*\) ('\(.*\)', 1)\$/\1\t\2/p" "$models/gavel_map.txt") \
  <(solo_rates "$out/simgpu-throughputs.json") >"$out/profiles.tsv"
# What each profile allocates (memory_mib), which its one-GPU jobs ask under
# --iashim.
declare -A mem_mib
while IFS=$'\t' read -r profile _; do
  mem_mib[$profile]=$(sed -n 's/^memory_mib[[:space:]]\{1,\}\([0-9]\{1,\}\).*/\1/p' "$models/$profile.model")
  [[ "${mem_mib[$profile]}" =~ ^[0-9]+$ && "${mem_mib[$profile]}" -gt 0 && "${mem_mib[$profile]}" -le $gpu_mem_mib ]] ||
    die "$models/$profile.model: no memory_mib of at most $gpu_mem_mib (the replay asks it under --iashim)"
done <"$out/profiles.tsv"
awk -F'\t' -v OFS='\t' 'NR == FNR { mib[$1] = $2; next } $3 == 1 { print $2, mib[$1] / g }' g="$gpu_mem_mib" \
  <(for p in "${!mem_mib[@]}"; do printf '%s\t%s\n' "$p" "${mem_mib[$p]}"; done) "$out/profiles.tsv" \
  >"$out/job-memory-shares.tsv"
[[ "$gangs_busy" == no ]] || queue_flags+=(--job-memory-shares "$out/job-memory-shares.tsv")
# What a live job's processes take beyond its iterations on this rig (the
# fake job's start and exit; under --iashim the shim's too, and a gang's
# ranks under srun), so that the simulator predicts the live run: the median
# of a row's run less its iterations over the live runs j70-j75 (RUNS.md,
# session 31; one-GPU jobs and gangs; plain: j71's 38 and 2, --iashim: 165
# and 75 of six runs), the runs after them held out. Not with --sim-only: a
# real cluster's jobs run hours, and the survey asks about the policy.
if [[ $live -eq 1 ]]; then
  queue_flags+=(--start-up-s "0.11,0.21" --managed-start-up-s "0.28,0.48")
fi
segment() {  # SCALE: jobs.tsv on stdout, segment.trace written
  awk -v start="$start" -v jobs="$jobs" -v scale="$1" -v every="$every" -v max_gpus="$max_gpus" -v node_gpus="$node_gpus" \
    -v trace_out="$out/segment.trace" -f scripts/replay/segment.awk \
    "$out/gavel-solo.tsv" "$out/profiles.tsv" "$trace" 2>"$out/segment.log" ||
    die "the segment: $(cat "$out/segment.log")"
}
if [[ "$start" == auto ]]; then
  picked=$(awk -v jobs="$jobs" -v gpus="$gpus" -v max_gpus="$max_gpus" -v node_gpus="$node_gpus" -f scripts/replay/pick_segment.awk "$out/gavel-solo.tsv" "$trace" \
           2>"$out/segment.log") || die "--start auto: $(cat "$out/segment.log")"
  IFS=$'\t' read -r start load <<<"$picked"
  say "--start auto: the segment from job $start (of those of at most $max_gpus GPUs) offers a load of $load GPUs to $gpus"
fi
if [[ "$scale" == auto ]]; then
  # Its span at the trace's own pace: first arrival to last end, alone.
  segment 1 >"$out/jobs-unscaled.tsv"
  span=$(awk -F'\t' '$5 + $6 > s { s = $5 + $6 } END { printf "%.0f", s }' "$out/jobs-unscaled.tsv")
  scale=$(awk -v s="$span" 'BEGIN { x = s / 200; printf "%.3f", x < 1 ? 1 : x }')
  say "--time-scale auto: $scale (the segment spans ${span} s alone at the trace's pace: 200 s here)"
fi
segment "$scale" >"$out/jobs.tsv"
say "segment: $jobs jobs of at most $max_gpus GPUs of $(basename "$trace") from number $start, time scale $scale; $(cat "$out/segment.log")"
awk -F'\t' '{ solo += $6 * $9; if ($5 + $6 > last) last = $5 + $6 }
  END { printf "live-replay.sh: %.0f GPU-s of work alone, the last job done after %.0f s if none waited or shared\n", solo, last }' \
  "$out/jobs.tsv"

# --- simulated --------------------------------------------------------------------------
simulate() {  # THROUGHPUTS_FILE DIR GUARANTEED_EVERY POLICIES [MORE FLAGS...]
  "$build/coordinator/clustersim/iashim-clustersim" --trace "$out/segment.trace" \
    --throughputs "$1" --gpu-type v100 --gpus "$gpus" --gpus-per-node "$node_gpus" \
    --guaranteed-every "$3" "${queue_flags[@]}" --policy "$4" "${@:5}" --json --out "$2" \
    >"$2/summary.jsonl" 2>"$2/stderr.txt" ||
    die "iashim-clustersim failed: $(tail -3 "$2/stderr.txt")"
}
# Plain Slurm with guaranteed jobs on whole GPUs (firstfit-whole) only where
# the report reads it: with no job guaranteed it is firstfit.
# With --move-jobs the coordinator moves jobs, and so does the simulator's
# iashim, at what a move cost on this rig: Slurm ran a requeued job again
# 1.9 s after `scontrol requeue` (RUNS.md, session 38), and the managed
# start-up (above) once more.
moving=()
[[ "$move_jobs" == no ]] || moving=(--migrate-to-empty-gpus "$(awk -v live="$live" 'BEGIN { print 1.9 + (live ? 0.28 : 0) }')")
simulate "$out/simgpu-throughputs.json" "$out/sim" "$every" exclusive,firstfit,firstfit-whole,iashim,oracle "${moving[@]}"
simulate "$out/simgpu-throughputs.json" "$out/sim-unprotected" 0 exclusive,firstfit,iashim,oracle "${moving[@]}"
simulate "$repo/bench/data/gavel/simulation_throughputs.json" "$out/sim-v100" "$every" exclusive,firstfit,iashim,oracle "${moving[@]}"
# What moving running jobs buys on a real cluster (live, only --move-jobs
# moves them): a job moved is checkpointed, requeued and restarted, taken as
# 300 s of a real job's time (saving and loading a checkpoint, Slurm
# starting it again, the process's start), an order of magnitude, not fitted (RUNS.md, session 38: the
# survey's median moved by 0.001 between 0 and 1 s of compressed time),
# divided by the time scale, and live the start-up the managed jobs measured
# again.
migration_cost_s=$(awk -v s="$scale" -v live="$live" 'BEGIN { printf "%.4f", 300 / s + (live ? 0.28 : 0) }')
simulate "$out/simgpu-throughputs.json" "$out/sim-migrate" "$every" firstfit,iashim \
  --migrate-to-empty-gpus "$migration_cost_s"
sim_policy() { case "$1" in plain) echo firstfit ;; iashim) echo iashim ;; esac; }
# Its per-job rows in the live rows' form: its job "segment:L" is the
# segment's line L, job L-1.
sim_rows() {  # MODE [DIR]: DIR sim (default) or sim-v100
  awk -F'\t' 'FILENAME == ARGV[1] { priority[$1] = $3; next }
    FNR > 1 { split($0, f, ","); sub(/^.*:/, "", f[1]); id = f[1] - 1
              printf "%d\t%s\t%s\t%s\t%s\t%s\t-\n", id, priority[id], f[4], f[5], f[6], f[8] }' \
    "$out/jobs.tsv" "$out/${2:-sim}/jobs-$(sim_policy "$1").csv" | sort -n -k1,1
}

# --- live ---------------------------------------------------------------------------------
sampler=""
stop_sampler() { [[ -z "$sampler" ]] || { kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null || true; }; sampler=""; }
cleanup() {
  local rc=$?
  stop_sampler
  trap - EXIT INT TERM
  "$repo/scripts/cluster-down.sh" --dir "$cluster_dir" >/dev/null 2>&1 || true
  exit $rc
}
job_script=$cluster_dir/out/replay-job.sh

cluster_energy_mj() {  # the energy counters of every GPU of the cluster, summed
  local total=0 e
  for i in $(seq "$nodes"); do
    # As the jobs' user: the first to open a simulated GPU makes its files, theirs.
    e=$(on "node$i" runuser -u nobody -- iashim-gpu-energy | awk -F'\t' '{ s += $2 } END { printf "%.0f", s }') ||
      die "iashim-gpu-energy failed on iashim-node$i"
    total=$((total + e))
  done
  echo "$total"
}

run_mode() {  # MODE: submits the segment at its arrival times and waits for it
  local mode=$1 dir=$cluster_dir/out/$1 t0 e0 e1 deadline
  mkdir -p "$dir"
  chmod 1777 "$dir"
  e0=$(cluster_energy_mj)
  # What the coordinator sees, every --status-every s (--iashim): budgets,
  # slowdowns, queues.
  if [[ "$mode" != plain ]]; then
    rm -rf "$out/status-$mode"
    mkdir -p "$out/status-$mode"
    (
      for n in $(seq 10000); do
        on head iashim status --json --timeout-s 2 >"$out/status-$mode/$(printf %05d "$n").json" 2>/dev/null || true
        sleep "$status_every"
      done
    ) &
    sampler=$!
  fi
  t0=$(date +%s.%N)
  # One submitter, in the segment's order, so that Slurm's queue (first come,
  # first served by job id) has the order iashim-clustersim replays; jobs of
  # one arrival time would otherwise race for their ids.
  local submitters=()
  (
    gangs=()
    # The segment on fd 3: what the loop runs may read its standard input.
    while IFS=$'\t' read -r -u 3 id profile priority iterations arrival _ _ _ k; do
      sleep "$(awk -v t0="$t0" -v a="$arrival" -v now="$(date +%s.%N)" 'BEGIN { d = t0 + a - now; printf "%.3f", (d > 0 ? d : 0) }')"
      args=(-D "$dir" -J "replay-$mode-$id" -o "$dir/$id.out" -e "$dir/$id.err")
      if [[ "$k" -gt 1 ]]; then
        # A gang: one step of k tasks on k whole GPUs of one node, as srun
        # starts data-parallel jobs (under --iashim one gang of k, the
        # plugin's step_gang.h). Without -N 1 Slurm may spread the tasks over
        # nodes whose CPUs are busy (each with gpu:k: --gres counts per
        # node). Wider than a node: whole nodes, node_gpus tasks on each
        # (under --iashim each node's tasks one gang; job_submit.lua leaves
        # the nodes to Slurm). srun returns when the step ends, so it runs in
        # the background and the next job waits until Slurm has this one.
        if [[ "$k" -gt "$node_gpus" ]]; then
          args+=(-N "$((k / node_gpus))" -n "$k" --ntasks-per-node="$node_gpus" --gres="gpu:$node_gpus")
        else
          args+=(-N 1 -n "$k" --gres="gpu:$k")
        fi
        # Whole GPUs (no --iashim-mem): a gang stating its memory would leave
        # room the coordinator could give a later job, where Slurm gives none.
        [[ "$mode" == plain ]] || args+=(--iashim="$priority" --iashim-kind="$profile")
        printf '%s\t%s\tsrun\n' "$id" "$(date +%s.%N)" >>"$dir/submitted.tsv"
        (
          on head runuser -u nobody -- srun "${args[@]}" "$job_script" "$profile" "$iterations" 2>"$dir/$id.sbatch" ||
            printf '%s\tsrun exited %s: %s\n' "$id" "$?" "$(tail -n 2 "$dir/$id.sbatch" | tr '\n' ' ')" >>"$dir/failed.tsv"
        ) &
        gangs+=($!)
        for _ in $(seq 100); do  # at most ~10 s
          on head squeue -h -n "replay-$mode-$id" -o %i 2>/dev/null | grep -q . && break
          kill -0 "${gangs[-1]}" 2>/dev/null || break
          sleep 0.1
        done
        continue
      fi
      args+=(--parsable --gres=shard:2)
      # Under --iashim, the memory it allocates: without --iashim-mem a job
      # asks the coordinator for a whole GPU.
      [[ "$mode" == plain ]] ||
        args+=(--iashim="$priority" --iashim-kind="$profile" --iashim-mem="${mem_mib[$profile]}MiB")
      # One the coordinator may move: requeued, it starts again where it was.
      checkpoint=()
      if [[ "$mode" != plain && "$move_jobs" == yes && "$priority" == opportunistic ]]; then
        args+=(--requeue --open-mode=append --iashim-movable)
        checkpoint=("$dir/$id.ckpt")
      fi
      if slurm_id=$(on head runuser -u nobody -- sbatch "${args[@]}" "$job_script" "$profile" "$iterations" "${checkpoint[@]}" 2>"$dir/$id.sbatch"); then
        printf '%s\t%s\t%s\n' "$id" "$(date +%s.%N)" "$slurm_id" >>"$dir/submitted.tsv"
      else
        printf '%s\tsbatch failed\n' "$id" >>"$dir/failed.tsv"
      fi
    done 3<"$out/jobs.tsv"
    wait "${gangs[@]}" 2>/dev/null || true  # running until the last gang's srun returns
  ) &
  submitters+=($!)
  local names
  names=$(cut -f1 "$out/jobs.tsv" | sed "s/^/replay-$mode-/" | paste -sd,)
  # Running while a submitter has not returned (a gang's srun returns when
  # the gang ends) or Slurm still holds one of the jobs.
  running() {
    local p
    for p in "${submitters[@]}"; do kill -0 "$p" 2>/dev/null && return 0; done
    on head squeue -h -n "$names" 2>/dev/null | grep -q .
  }
  deadline=$((SECONDS + max_minutes * 60))
  while running; do
    if [[ $SECONDS -ge $deadline ]]; then
      say "$mode: still running after $max_minutes minutes; cancelling"
      # scancel -n takes one name, not squeue's list: cancel by id.
      mapfile -t ids < <(on head squeue -h -n "$names" -o %i 2>/dev/null || true)
      [[ ${#ids[@]} -eq 0 ]] || on head scancel "${ids[@]}" || true
      echo "timeout" >>"$dir/failed.tsv"
      break
    fi
    sleep 1
  done
  wait "${submitters[@]}" 2>/dev/null || true  # not the sampler; a cancelled gang's srun returns
  stop_sampler
  e1=$(cluster_energy_mj)
  # The rows: times from t0; the GPUs as node:index[,index...], a job on
  # several nodes node:...+node:.... Each of a gang's k tasks prints a start
  # and an end line: its first start, its last end, every GPU its tasks saw;
  # and the fake job's summary, whose "seconds" are its iterations' by its own
  # clock (after its start-up): the slowest task's, the job's run without the
  # start-up that no share can help. A one-GPU job Slurm requeued to move it
  # (--move-jobs) started more than once, and its runs' iterations add up;
  # a run stopped to move may end without its end line (its shell killed).
  : >"$out/live-$mode.tsv"
  while IFS=$'\t' read -r id _ priority _ arrival solo _ _ k; do
    if [[ ! -f "$dir/$id.out" ]]; then
      printf '%s\tnever started\n' "$id" >>"$dir/failed.tsv"
      continue
    fi
    awk -v t0="$t0" -v id="$id" -v p="$priority" -v a="$arrival" -v solo="$solo" -v k="$k" '
      $1 == "start" { if (starts++ == 0 || $2 < s) s = $2; if (!($3 in on)) hosts[++nhosts] = $3
                      n = split($4, g, ",")
                      for (i = 1; i <= n; i++) if (!(($3, g[i]) in seen)) { seen[$3, g[i]] = 1; on[$3] = on[$3] (on[$3] == "" ? "" : ",") g[i] } }
      $1 == "end" { if (ends++ == 0 || $2 > e) e = $2; if ($3 != 0) rc = $3 }
      /^\{"summary": true/ && match($0, /"seconds": [0-9.]+/) {
        v = substr($0, RSTART + 11, RLENGTH - 11) + 0; if (v > iter) iter = v; total += v; summaries++ }
      END { moved = k == 1 && starts > 1
            if ((moved ? ends < 1 || ends > starts : starts != k || ends != k) || rc != "") {
              printf "%s\tno clean end (%d of %d tasks started, %d ended, exit %s)\n", id, starts, k, ends, (rc == "" ? 0 : rc) > "/dev/stderr"
              exit 1 }
            where = ""; for (h = 1; h <= nhosts; h++) where = where (h > 1 ? "+" : "") hosts[h] ":" on[hosts[h]]
            printf "%s\t%s\t%.3f\t%.3f\t%.3f\t%.3f\t%s\t%s\n", id, p, a, s - t0, e - t0, solo, where,
                   (summaries == starts ? sprintf("%.3f", k == 1 ? total : iter) : "-") }' \
      "$dir/$id.out" >>"$out/live-$mode.tsv" 2>>"$dir/failed.tsv" || true
  done <"$out/jobs.tsv"
  awk -v e0="$e0" -v e1="$e1" -v n="$jobs" 'BEGIN { printf "energy_per_job_j %.1f\n", (e1 - e0) / 1000 / n }' \
    >"$out/live-$mode.energy"
  rm -rf "$out/live-$mode-logs"
  cp -r "$dir" "$out/live-$mode-logs"
  # Where slurmctld sent each job and why (job_submit.lua's node choice), for
  # the queue's part of a gap; the log holds every mode run so far.
  cp "$cluster_dir/log/slurmctld.log" "$out/live-$mode-logs/slurmctld.log" 2>/dev/null || true
  # And what the coordinator said (placements, refusals), for the policy's part.
  [[ "$mode" == plain ]] ||
    cp "$cluster_dir/log/coordinator.log" "$out/live-$mode-logs/coordinator.log" 2>/dev/null || true
  [[ ! -s "$dir/failed.tsv" ]]
}

status=0
if [[ $live -eq 1 ]]; then
  trap cleanup EXIT
  trap 'exit 130' INT TERM
  began=$SECONDS
  scripts/cluster-up.sh --nodes "$nodes" --dir "$cluster_dir" --build-dir "$build" \
    --join-busy-gpus "$gangs_busy" --move-jobs "$move_jobs" ||
    die "cluster-up.sh failed"
  say "cluster up in $((SECONDS - began)) s"
  # What each job (or each task of a gang) runs: when it starts, where, and
  # when it ends. A task of a gang (srun -n k) is one data-parallel rank
  # (scripts/slurm-rank.sh): under --iashim it sees only its own GPU of the
  # gang, under plain Slurm all of the step's on its node. A third argument:
  # the checkpoint a job that may be moved resumes from (--move-jobs); a job
  # Slurm requeues runs this again from the top, appending to its output.
  sed "s|@REPO@|$repo|" >"$job_script" <<'EOF'
#!/bin/sh
echo "start $(date +%s.%N) $(hostname) ${CUDA_VISIBLE_DEVICES:--}"
"@REPO@/scripts/slurm-rank.sh" iashim-fakejob --model "$1" --iterations "$2" --quiet ${3:+--checkpoint "$3"}
rc=$?
echo "end $(date +%s.%N) $rc"
exit $rc
EOF
  chmod 755 "$job_script"
  for mode in "${mode_list[@]}"; do
    began=$SECONDS
    say "$mode: submitting $jobs jobs at their arrival times"
    if run_mode "$mode"; then
      say "$mode: done in $((SECONDS - began)) s"
    else
      say "$mode: FAILED: $(head -c 600 "$cluster_dir/out/$mode/failed.tsv")"
      status=1
    fi
  done
fi

# --- the report -----------------------------------------------------------------------------
{
  echo "mode,source,metric,value"
  for mode in "${mode_list[@]}"; do
    sim_rows "$mode" >"$out/sim-$mode.tsv"
    if [[ $live -eq 1 ]]; then
      replay_metrics "$out/live-$mode.tsv" "$gpus" | sed "s/^/$mode,live,/; s/ /,/"
      sed "s/^/$mode,live,/; s/ /,/" "$out/live-$mode.energy"
    fi
    replay_metrics "$out/sim-$mode.tsv" "$gpus" | sed "s/^/$mode,sim,/; s/ /,/"
    sim_rows "$mode" sim-v100 >"$out/sim-v100-$mode.tsv"
    replay_metrics "$out/sim-v100-$mode.tsv" "$gpus" | sed "s/^/$mode,sim_v100,/; s/ /,/"
    jq -r '"gpu_util \(.gpu_util)\nenergy_per_job_j \(.energy_per_job_kwh * 3600000)"' \
      <(grep "\"policy\":\"$(sim_policy "$mode")\"" "$out/sim/summary.jsonl") | sed "s/^/$mode,sim,/; s/ /,/"
  done
} >"$out/summary.csv"
value() {  # MODE SOURCE METRIC: 4 significant digits, "-" when not known
  awk -F, -v m="$1" -v s="$2" -v k="$3" '$1 == m && $2 == s && $3 == k { v = $4 }
    END { if (v == "" || v == "nan") print "-"; else printf "%.4g\n", v }' "$out/summary.csv"
}
{
  echo "Live replay: $jobs jobs of $(basename "$trace") from job $start (of those of at most $max_gpus GPUs), time scale $scale,"
  echo "$nodes nodes x 4 simulated V100s (simgpu: simulated figures, on a $(nproc)-core machine)."
  echo "live = real slurmctld/slurmd and processes; sim = iashim-clustersim on the same segment with"
  echo "simgpu's pair throughputs (plain shards ~ its firstfit policy, --iashim ~ its iashim policy);"
  case "$queue" in
    slurm) echo "queue: slurm, a backfill pass every $slurm_backfill_interval_s s (Slurm with no time limits, as the cluster's);"
      if [[ "$gangs_busy" == yes ]]; then
        echo "gangs may be given GPUs whose shards are in use (Slurm 22.05): plain runs them beside those jobs, and so does"
        echo "iashim, on the node its coordinator predicts best (--join-busy-gpus), under its control loop."
      else
        echo "gangs take empty GPUs only."
      fi ;;
    reserve) echo "queue: reserve (the oldest waiting gang reserves a node; not what the cluster's Slurm does)." ;;
    greedy) echo "queue: greedy (any job that fits starts; not what the cluster's Slurm does)." ;;
  esac
  echo
  printf '%-34s' "metric"
  for mode in "${mode_list[@]}"; do printf '%12s%12s%8s' "$mode live" "$mode sim" "ratio"; done
  echo
  for k in mean_jct_s p99_jct_s mean_slowdown guaranteed_mean_run_slowdown guaranteed_max_run_slowdown \
           long_guaranteed_mean_run_slowdown long_guaranteed_max_run_slowdown \
           long_guaranteed_mean_iter_slowdown long_guaranteed_max_iter_slowdown guaranteed_mean_slowdown \
           mean_wait_s mean_run_s makespan_s gpu_util energy_per_job_j; do
    printf '%-34s' "$k"
    for mode in "${mode_list[@]}"; do
      l=$(value "$mode" live "$k")
      s=$(value "$mode" sim "$k")
      printf '%12s%12s%8s' "$l" "$s" "$(awk -v l="$l" -v s="$s" 'BEGIN { if (l == "-" || s == "-" || s + 0 == 0) print "-"; else printf "%.2f", l / s }')"
    done
    echo
  done
  echo
  # Where a gap over 10% in mean JCT comes from: JCT = wait + run, and the
  # jobs that account for most of each (scripts/replay/gap_causes.awk).
  for mode in "${mode_list[@]}"; do
    if awk -v m="$mode" -v lj="$(value "$mode" live mean_jct_s)" -v sj="$(value "$mode" sim mean_jct_s)" \
        -v lw="$(value "$mode" live mean_wait_s)" -v sw="$(value "$mode" sim mean_wait_s)" \
        -v lr="$(value "$mode" live mean_run_s)" -v sr="$(value "$mode" sim mean_run_s)" 'BEGIN {
      if (lj == "-" || sj == "-") exit 1
      gap = lj / sj - 1
      printf "%s: live/sim mean JCT %.2f", m, lj / sj
      if (gap > 0.10 || gap < -0.10)
        printf " (gap over 10%%): of %+.1f s, waiting %+.1f s (queue timing, Slurm and placement latency), running %+.1f s (interference, throttling, host overheads)",
               lj - sj, lw - sw, lr - sr
      printf "\n"
      exit !(gap > 0.10 || gap < -0.10) }'; then
      awk -v window="$((slurm_backfill_interval_s + 1))" -f scripts/replay/gap_causes.awk \
        "$out/live-$mode.tsv" "$out/sim-$mode.tsv"
    fi
  done
  # The same segment where jobs interfere as on a real V100 (Gavel's measured
  # pairs; simgpu's pairs are far more alike, simgpu/README.md).
  for mode in "${mode_list[@]}"; do
    printf '%s, simulated with measured V100 pairs: mean JCT %s s, guaranteed max run slowdown %s\n' \
      "$mode" "$(value "$mode" sim_v100 mean_jct_s)" "$(value "$mode" sim_v100 guaranteed_max_run_slowdown)"
  done
  # What iashim's distance from plain Slurm in the simulator is made of: the
  # learner's errors (the same placement with perfect predictions, oracle)
  # and the guarantee itself (the same segment with no job guaranteed, where
  # no co-runner is throttled).
  sim_jct() {  # DIR POLICY
    jq -r --arg p "$2" 'select(.policy == $p) | .mean_jct_s' "$out/$1/summary.jsonl"
  }
  awk -v f="$(sim_jct sim firstfit)" -v i="$(sim_jct sim iashim)" -v o="$(sim_jct sim oracle)" \
      -v fu="$(sim_jct sim-unprotected firstfit)" -v iu="$(sim_jct sim-unprotected iashim)" \
      -v ou="$(sim_jct sim-unprotected oracle)" 'BEGIN {
    if (f + 0 == 0 || fu + 0 == 0) exit
    printf "simulated (simgpu pairs), iashim / plain mean JCT: %.3f as run, %.3f with perfect predictions (oracle);\n", i / f, o / f
    printf "  with no job guaranteed (no co-runner throttled): %.3f, %.3f with perfect predictions\n", iu / fu, ou / fu }'
  # The what-if of moving jobs (sim-migrate/, above).
  awk -v f="$(sim_jct sim firstfit)" -v m="$(sim_jct sim-migrate iashim)" -v cost="$migration_cost_s" \
      -v moves="$(jq -r 'select(.policy == "iashim") | .migrations' "$out/sim-migrate/summary.jsonl")" 'BEGIN {
    if (f + 0 == 0) exit
    printf "  with each slowed opportunistic job moved to a GPU that empties (on a real cluster, %s s a move; live only with --move-jobs): %.3f, %d moves\n", cost, m / f, moves }'
  # What plain Slurm pays to keep guaranteed jobs at their speed without
  # iashim: a whole GPU each (--gres=gpu:1), the other jobs on shards.
  awk -v w="$(sim_jct sim firstfit-whole)" -v i="$(sim_jct sim iashim)" -v every="$every" 'BEGIN {
    if (every + 0 == 0 || w + 0 == 0) exit
    printf "  plain with every guaranteed job on a whole GPU (--gres=gpu:1, the rest shards): mean JCT %.1f s, iashim / that %.3f\n", w, i / w }'
  if [[ $live -eq 1 && " ${mode_list[*]} " == *" plain "* && " ${mode_list[*]} " == *" iashim "* ]]; then
    awk -v p="$(value plain live mean_jct_s)" -v i="$(value iashim live mean_jct_s)" \
        -v g="$(value iashim live guaranteed_max_run_slowdown)" -v gp="$(value plain live guaranteed_max_run_slowdown)" \
        -v lg="$(value iashim live long_guaranteed_max_run_slowdown)" -v lgp="$(value plain live long_guaranteed_max_run_slowdown)" 'BEGIN {
      printf "live: --iashim mean JCT %.1f s vs plain shards %.1f s (%s); guaranteed jobs run slowdown at most %s (plain: %s; target 1.10),\n",
             i, p, (i < p ? "iashim better" : "iashim NOT better"), g, gp
      printf "  those of 4 s or more alone at most %s (plain: %s)\n", lg, lgp }'
  fi
  # The moves the coordinator asked for, live and simulated (--move-jobs).
  if [[ $live -eq 1 && "$move_jobs" == yes && " ${mode_list[*]} " == *" iashim "* ]]; then
    log=$out/live-iashim-logs/coordinator.log
    printf 'moves (--move-jobs): %d asked live, %d of them not carried out (coordinator.log); %s simulated\n' \
      "$(grep -c 'asked Slurm to requeue' "$log" 2>/dev/null || true)" \
      "$(grep -c -E '^iashim-coordinator: .* moving .*: .*(exited|died|killed|could not start)' "$log" 2>/dev/null || true)" \
      "$(jq -r 'select(.policy == "iashim") | .migrations' "$out/sim/summary.jsonl")"
  fi
} | tee "$out/report.txt"

# JCT per job, sorted (a CDF), live and simulated.
plot_args=()
for mode in "${mode_list[@]}"; do
  for src in live sim; do
    [[ $live -eq 1 || $src == sim ]] || continue
    awk -F'\t' '{ print $5 - $3 }' "$out/$src-$mode.tsv" | sort -g | awk '{ print NR, $1 }' >"$out/jct-$src-$mode.dat"
    plot_args+=("'$out/jct-$src-$mode.dat' using 2:1 with steps lw 2 title '$mode ($src)'")
  done
done
gnuplot <<EOF || die "gnuplot failed"
set terminal pngcairo size 900,600 enhanced font 'Sans,11'
set output '$out/jct.png'
set title "Live replay vs iashim-clustersim: $jobs jobs of $(basename "$trace"), time scale $scale (simgpu, simulated V100s)"
set xlabel 'job completion time (s)'
set ylabel 'jobs done'
set key bottom right
set grid
plot $(IFS=,; echo "${plot_args[*]}")
EOF
say "report: $out/report.txt, $out/summary.csv, $out/jct.png"
exit $status
}
