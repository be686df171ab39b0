#!/usr/bin/env bash
# scripts/live-replay.sh without a cluster (--sim-only): the segment it cuts
# from a trace, the clustersim run on it, the figures its report computes
# (scripts/replay/metrics.sh, checked on rows worked out by hand) and the
# arguments it refuses. The live part needs root and minutes: README, "A live
# trace replay".
# usage: live_replay_sim_only_test.sh REPO BUILD_DIR
set -euo pipefail
repo=$1
build=$2
out=$(mktemp -d)
cache_before=""  # set while the test may add a file to the build tree's replay cache
cleanup() {
  if [[ -n $cache_before ]]; then
    comm -13 <(echo "$cache_before") <(ls "$build"/replay-cache) |
      while read -r f; do rm -f "$build/replay-cache/$f"; done
  fi
  rm -rf "$out"
}
trap cleanup EXIT
fail() { echo "FAILED: $*" >&2; exit 1; }
trace=$repo/bench/data/gavel/msr-seed0/b436b2.trace

# --- the figures, on four jobs worked out by hand (seconds from the start):
#   job  priority       arrival start end  solo  gpu
#   0    guaranteed     0       0     10   10    a   JCT 10, slowdown 1, run 1
#   1    opportunistic  0       0     20   10    a   JCT 20, slowdown 2
#   2    opportunistic  5       10    30   10    b   JCT 25, slowdown 2.5
#   3    guaranteed     10      30    40   8     b   JCT 30, slowdown 3.75, run 1.25
# mean JCT 21.25; waits 0,0,5,20 (6.25); busy: a [0,20], b [10,40] = 50 of
# 2 GPUs x 40 s = 0.625; p99 of JCTs 10,20,25,30: 25 + 0.97 * 5 = 29.85.
# shellcheck source=../../scripts/replay/metrics.sh
source "$repo/scripts/replay/metrics.sh"
printf '%s\n' "0	guaranteed	0	0	10	10	a" "1	opportunistic	0	0	20	10	a" \
  "2	opportunistic	5	10	30	10	b" "3	guaranteed	10	30	40	8	b" >"$out/rows.tsv"
replay_metrics "$out/rows.tsv" 2 >"$out/metrics.txt"
expect() {  # KEY VALUE
  grep -qx "$1 $2" "$out/metrics.txt" || fail "$1: expected $2; got: $(grep "^$1 " "$out/metrics.txt" || echo none)"
}
expect mean_jct_s 21.25
expect mean_wait_s 6.25
expect makespan_s 40.0
expect gpu_util 0.625
expect p99_jct_s 29.850
expect guaranteed 2
expect guaranteed_mean_run_slowdown 1.125
expect guaranteed_max_run_slowdown 1.250
expect guaranteed_max_slowdown 3.750
expect mean_slowdown 2.312
# The long guaranteed jobs, 4 s or more alone: not the 2 s one (run 1.3).
printf '%s\n' "0	guaranteed	0	0	2.6	2	a" "1	guaranteed	0	0	11	10	b" >"$out/long-rows.tsv"
replay_metrics "$out/long-rows.tsv" 2 >"$out/metrics.txt"
expect guaranteed_max_run_slowdown 1.300
expect long_guaranteed_mean_run_slowdown 1.100
expect long_guaranteed_max_run_slowdown 1.100
# Without iter_s (a simulated row) the iteration slowdown is the run's.
expect long_guaranteed_max_iter_slowdown 1.100
# With it (a live row), the job's own clock: start-up left out. Job 1 ran
# 11 s, 10.5 of them iterating (1.05); job 2, 12 s with no summary, its run
# (1.2); the 2 s job 0 is not long.
printf '%s\n' "0	guaranteed	0	0	2.6	2	a	2.2" "1	guaranteed	0	0	11	10	b	10.500" \
  "2	guaranteed	0	0	12	10	c	-" >"$out/iter-rows.tsv"
replay_metrics "$out/iter-rows.tsv" 3 >"$out/metrics.txt"
expect long_guaranteed_max_run_slowdown 1.200
expect long_guaranteed_mean_iter_slowdown 1.125
expect long_guaranteed_max_iter_slowdown 1.200
# A gang keeps each of its GPUs busy: n:0,1 over [0, 10], then a job on n:1
# over [5, 20]: 10 + 20 GPU-seconds of 2 GPUs x 20 s.
printf '%s\n' "0	opportunistic	0	0	10	10	n:0,1" "1	opportunistic	0	5	20	15	n:1" >"$out/gang-rows.tsv"
replay_metrics "$out/gang-rows.tsv" 2 >"$out/metrics.txt"
expect gpu_util 0.750
# A gang on two nodes keeps each GPU of both busy: m:0,1+n:0,1 over [0, 10],
# then a job on n:1 over [5, 20]: 40 + 10 GPU-seconds of 4 GPUs x 20 s.
printf '%s\n' "0	opportunistic	0	0	10	10	m:0,1+n:0,1" "1	opportunistic	0	5	20	15	n:1" >"$out/nodes-rows.tsv"
replay_metrics "$out/nodes-rows.tsv" 4 >"$out/metrics.txt"
expect gpu_util 0.625

# --- where a gap comes from (scripts/replay/gap_causes.awk), on five jobs:
#   job  live: start end  GPUs     sim: start end
#   0    guaranteed   0    50  n:0          0   49
#   1    gang          1    41  n:0,1        1   11   ran 40 s live, 10 simulated
#   2                 41.5  45  n:1         11   14.5 started as 1 ended
#   3                 45.2  50  n:1         14.5 19   started as 2 ended
#   4                  2    10  m:0          2   10
# Waiting gaps 30.5 (2) and 30.7 (3), both put down to job 1 (3 through 2):
# +12.2 s a job. Running gaps 1, 30, 0, 0.3, 0: +6.3 s a job, +6.0 by job 1,
# beside guaranteed job 0 all its run; job 0's +0.2 is under a tenth.
printf '%s\n' "0	guaranteed	0	0	50	45	n:0" "1	opportunistic	0	1	41	2	n:0,1" \
  "2	opportunistic	1	41.5	45	3	n:1" "3	opportunistic	1	45.2	50	4	n:1" \
  "4	opportunistic	2	2	10	8	m:0" >"$out/gap-live.tsv"
printf '%s\n' "0	guaranteed	0	0	49	45	-" "1	opportunistic	0	1	11	2	-" \
  "2	opportunistic	1	11	14.5	3	-" "3	opportunistic	1	14.5	19	4	-" \
  "4	opportunistic	2	2	10	8	-" >"$out/gap-sim.tsv"
awk -v window=3 -f "$repo/scripts/replay/gap_causes.awk" "$out/gap-live.tsv" "$out/gap-sim.tsv" >"$out/gap.txt"
expect_line() {  # LINE
  grep -qxF -- "$1" "$out/gap.txt" || fail "gap_causes: expected '$1'; got: $(cat "$out/gap.txt")"
}
expect_line "  waiting +12.2 s a job (the jobs that waited longer than simulated +12.2 s, the others +0.0 s)"
expect_line "    +12.2 s: 2 jobs that started after job 1 (opportunistic, 2 GPUs, 2.0 s alone) ended, or after a job that did; it ran 40.0 s live, 10.0 s simulated"
expect_line "  running +6.3 s a job"
expect_line "    +6.0 s: job 1 (opportunistic, 2 GPUs, 2.0 s alone) ran 40.0 s live, 10.0 s simulated; guaranteed job 0 on its GPUs for 100% of it"
[[ $(wc -l <"$out/gap.txt") -eq 4 ]] || fail "gap_causes: expected 4 lines; got: $(cat "$out/gap.txt")"
# A job that followed no end on its GPUs (4, waiting 10 s more live) is put
# down to the queue; within a second of the mean on both parts, nothing is
# said.
awk -F'\t' -v OFS='\t' '$1 == 4 { $4 = 12; $5 = 20 } { print }' "$out/gap-live.tsv" >"$out/gap-live4.tsv"
awk -v window=3 -f "$repo/scripts/replay/gap_causes.awk" "$out/gap-live4.tsv" "$out/gap-sim.tsv" >"$out/gap.txt"
expect_line "    +2.0 s: 1 job that followed no job's end on its GPUs (the queue's order, Slurm's and the coordinator's latency)"
printf '%s\n' "0	guaranteed	0	0	10	10	n:0" >"$out/same.tsv"
[[ -z $(awk -f "$repo/scripts/replay/gap_causes.awk" "$out/same.tsv" "$out/same.tsv") ]] ||
  fail "gap_causes: said something of a run the simulation matched"

# --- a segment and its simulation, without a cluster.
"$repo/scripts/live-replay.sh" --trace "$trace" --sim-only --jobs 12 --start 120 --time-scale 100 \
  --out "$out/run" --build-dir "$build" >"$out/run.log" 2>&1 || { cat "$out/run.log"; fail "--sim-only failed"; }
[[ $(wc -l <"$out/run/jobs.tsv") -eq 12 ]] || fail "jobs.tsv has $(wc -l <"$out/run/jobs.tsv") jobs, not 12"
[[ $(wc -l <"$out/run/segment.trace") -eq 12 ]] || fail "segment.trace has not 12 jobs"
# Every 4th job guaranteed; arrivals from 0, in order; at least one iteration;
# each job's length alone is its Gavel length / 100 (to an iteration).
awk -F'\t' '
  ($1 % 4 == 0) != ($3 == "guaranteed") { print "priority of job " $1; bad = 1 }
  NR == 1 && $5 != 0 { print "first arrival " $5; bad = 1 }
  $5 < last { print "arrival order at job " $1; bad = 1 }
  { last = $5 }
  $4 < 1 { print "iterations of job " $1; bad = 1 }
  { d = $6 - $8 / 100; if (d < 0) d = -d; if (d > 0.25 && $4 > 1) { print "length of job " $1 ": " $6 " vs " $8 / 100; bad = 1 } }
  END { exit bad }' "$out/run/jobs.tsv" || fail "jobs.tsv is wrong (above)"
# Each job runs a profile whose Gavel type, at its scale, is in simgpu's
# throughputs.
cut -f1,7 "$out/run/segment.trace" | sort -u | while IFS=$'\t' read -r type k; do
  jq -e --arg k "('$type', $k)" '.v100[$k].null > 0' "$out/run/simgpu-throughputs.json" >/dev/null ||
    fail "segment.trace type '$type' on $k GPUs has no simgpu throughput"
done
# The segment has gangs (this one: 2 and 4 GPUs), each as many GPUs in both
# files, its steps every rank's.
paste "$out/run/jobs.tsv" "$out/run/segment.trace" | awk -F'\t' '
  $9 != $16 { print "job " $1 ": " $9 " GPUs in jobs.tsv, " $16 " in segment.trace"; bad = 1 }
  $4 * $9 != $14 { print "job " $1 ": " $4 " iterations x " $9 " ranks, " $14 " steps"; bad = 1 }
  $9 > 1 { gangs++ }
  END { if (gangs < 2) { print gangs + 0 " gangs"; bad = 1 } exit bad }' || fail "the segment's gangs are wrong (above)"
# The simulator's other queue models (the default is Slurm's): the same jobs,
# and on this segment of gangs other schedules.
for queue in reserve greedy; do
  "$repo/scripts/live-replay.sh" --trace "$trace" --sim-only --jobs 12 --start 120 --time-scale 100 --queue "$queue" \
    --out "$out/$queue" --build-dir "$build" >"$out/$queue.log" 2>&1 || { cat "$out/$queue.log"; fail "--queue $queue failed"; }
  cmp -s "$out/run/jobs.tsv" "$out/$queue/jobs.tsv" || fail "--queue $queue changed the segment"
  cmp -s "$out/run/sim/jobs-firstfit.csv" "$out/$queue/sim/jobs-firstfit.csv" &&
    fail "--queue $queue gave firstfit the schedule Slurm's queue did"
  grep -q "queue: $queue" "$out/$queue/report.txt" || fail "report.txt does not name the queue $queue"
done
grep -q "queue: slurm, a backfill pass every 2 s" "$out/run/report.txt" || fail "report.txt does not name Slurm's queue"
# Slurm 22.05's shards, on a segment where a gang arrives at a node whose
# GPUs one-GPU jobs use: plain shards' gang starts beside them, so firstfit's
# schedule changes, and the report says which accounting was simulated.
for busy in yes no; do
  "$repo/scripts/live-replay.sh" --trace "$trace" --sim-only --jobs 12 --start 0 --time-scale 100 --max-gpus-per-job 4 \
    --gangs-take-busy-gpus "$busy" --out "$out/busy-$busy" --build-dir "$build" >"$out/busy-$busy.log" 2>&1 ||
    { cat "$out/busy-$busy.log"; fail "--gangs-take-busy-gpus $busy failed"; }
done
cmp -s "$out/busy-yes/sim/jobs-firstfit.csv" "$out/busy-no/sim/jobs-firstfit.csv" &&
  fail "--gangs-take-busy-gpus yes gave firstfit the same schedule as no"
grep -q "gangs may be given GPUs whose shards are in use" "$out/busy-yes/report.txt" ||
  fail "report.txt does not say gangs took busy GPUs"
grep -q "gangs take empty GPUs only" "$out/busy-no/report.txt" || fail "report.txt does not say gangs took empty GPUs"
# auto: 22.05's accounting where the Slurm a live run here would use is 22.05,
# the installed slurmctld's version or, with none installed, the slurm-wlm apt
# would install (stand-ins for both on PATH; no /usr/sbin, so no real one).
mkdir -p "$out/bin-2205" "$out/bin-2302" "$out/bin-apt"
printf '#!/bin/sh\necho "slurm 22.05.8"\n' >"$out/bin-2205/slurmctld"
printf '#!/bin/sh\necho "slurm 23.02.1"\n' >"$out/bin-2302/slurmctld"
printf '#!/bin/sh\nprintf "slurm-wlm:\\n  Installed: (none)\\n  Candidate: 22.05.8-4+deb12u3\\n"\n' >"$out/bin-apt/apt-cache"
chmod +x "$out"/bin-*/*
for fake in 2205:yes 2302:no apt:yes; do
  bin=${fake%%:*} want=${fake#*:}
  PATH="$out/bin-$bin:/usr/local/bin:/usr/bin:/bin" "$repo/scripts/live-replay.sh" --trace "$trace" --sim-only \
    --jobs 12 --start 0 --time-scale 100 --max-gpus-per-job 4 --out "$out/auto-$bin" --build-dir "$build" \
    >"$out/auto-$bin.log" 2>&1 || { cat "$out/auto-$bin.log"; fail "--gangs-take-busy-gpus auto ($bin) failed"; }
  grep -q -- "--gangs-take-busy-gpus auto: $want (Slurm " "$out/auto-$bin.log" ||
    fail "auto with Slurm $bin did not say $want: $(grep -- --gangs-take "$out/auto-$bin.log")"
  cmp -s "$out/busy-$want/sim/jobs-firstfit.csv" "$out/auto-$bin/sim/jobs-firstfit.csv" ||
    fail "auto with Slurm $bin did not simulate as --gangs-take-busy-gpus $want"
done
# Jobs wider than a node (3 nodes of 4 GPUs, by default jobs of up to all 12):
# 8-GPU jobs on two whole nodes, in simgpu's throughputs across the fabric.
# With at most 4 GPUs a job, they are left out and counted.
awk -F'\t' '$9 == 8 { wide++ } $9 > 12 || ($9 > 4 && $9 % 4 != 0) { bad = 1 } END { exit bad || wide < 2 }' \
  "$out/run/jobs.tsv" || fail "the segment has not two 8-GPU jobs and no others wider than a node: $(cut -f9 "$out/run/jobs.tsv" | sort | uniq -c | tr '\n' ' ')"
grep -q "left out among them: 0 of more than 12 GPUs, 0 of more than a node's 4 in part of a node" "$out/run.log" ||
  fail "the segment's log does not count what it left out: $(grep segment: "$out/run.log")"
jq -e '[.v100 | to_entries[] | select(.key | test(", 8\\)$")) | .value.null] | length > 0 and all(. > 0)' \
  "$out/run/simgpu-throughputs.json" >/dev/null || fail "simgpu-throughputs.json has no 8-GPU throughputs"
awk -F, 'NR > 1 && $3 == 8 && $6 > $5 { n++ } END { exit n < 2 }' "$out/run/sim/jobs-iashim.csv" ||
  fail "the simulator did not run the 8-GPU jobs: $(head -3 "$out/run/sim/jobs-iashim.csv")"
"$repo/scripts/live-replay.sh" --trace "$trace" --sim-only --jobs 12 --start 120 --time-scale 100 --max-gpus-per-job 4 \
  --out "$out/node" --build-dir "$build" >"$out/node.log" 2>&1 || { cat "$out/node.log"; fail "--max-gpus-per-job 4 failed"; }
awk -F'\t' '$9 > 4 { exit 1 }' "$out/node/jobs.tsv" || fail "--max-gpus-per-job 4 took a job wider than a node"
grep -q "left out among them: [1-9][0-9]* of more than 4 GPUs" "$out/node.log" ||
  fail "--max-gpus-per-job 4 did not count the 8-GPU jobs it left out: $(grep segment: "$out/node.log")"
# One GPU per job at most: the segment as it was before gangs were replayed.
"$repo/scripts/live-replay.sh" --trace "$trace" --sim-only --jobs 12 --start 120 --time-scale 100 --max-gpus-per-job 1 \
  --out "$out/one" --build-dir "$build" >"$out/one.log" 2>&1 || { cat "$out/one.log"; fail "--max-gpus-per-job 1 failed"; }
awk -F'\t' '$9 != 1 { exit 1 }' "$out/one/jobs.tsv" || fail "--max-gpus-per-job 1 took a gang"
grep -q "left out among them: [0-9]* of more than 1 GPUs" "$out/one.log" ||
  fail "--max-gpus-per-job 1 did not say what it left out: $(grep segment: "$out/one.log")"
# With guaranteed jobs on whole GPUs no guaranteed one-GPU job (every 4th;
# job "segment:L" is line L) shares its GPU: each of them runs as fast as alone
# (to the CSV's millisecond rounding).
awk -F, 'NR > 1 { split($1, id, ":") } NR > 1 && (id[2] - 1) % 4 == 0 && $3 == 1 { n++; if ($6 - $5 > 1.0001 * $8 + 0.002) bad = 1 }
  END { exit bad || n == 0 }' "$out/one/sim/jobs-firstfit-whole.csv" ||
  fail "a guaranteed job on a whole GPU ran slower than alone, or there was none to check"
for mode in plain iashim; do
  for k in mean_jct_s p99_jct_s mean_slowdown guaranteed_max_run_slowdown gpu_util energy_per_job_j; do
    grep -q "^$mode,sim,$k," "$out/run/summary.csv" || fail "summary.csv lacks $mode sim $k"
  done
  for k in mean_jct_s guaranteed_max_run_slowdown; do
    grep -q "^$mode,sim_v100,$k," "$out/run/summary.csv" || fail "summary.csv lacks $mode sim_v100 $k"
  done
  grep -q "^$mode,live," "$out/run/summary.csv" && fail "summary.csv has live figures from --sim-only"
  grep -q "^$mode, simulated with measured V100 pairs: mean JCT [0-9.]* s" "$out/run/report.txt" ||
    fail "report.txt lacks the $mode line with measured V100 pairs"
done
# Gavel's pairs are the other ground truth: the same jobs, other run times.
[[ $(wc -l <"$out/run/sim-v100/jobs-iashim.csv") -eq 13 ]] || fail "sim-v100/jobs-iashim.csv has not 12 jobs"
cmp -s "$out/run/sim/jobs-firstfit.csv" "$out/run/sim-v100/jobs-firstfit.csv" &&
  fail "the measured V100 pairs gave firstfit the very run simgpu's did"
grep -q "^mean_jct_s " "$out/run/report.txt" || fail "report.txt has no mean JCT row"
# What iashim's distance from plain is made of: the learner (oracle) and the
# guarantee (no job guaranteed). Plain shards know no priority, so their run
# is the same without one.
[[ $(wc -l <"$out/run/sim/jobs-oracle.csv") -eq 13 ]] || fail "sim/jobs-oracle.csv has not 12 jobs"
cmp -s "$out/run/sim/jobs-firstfit.csv" "$out/run/sim-unprotected/jobs-firstfit.csv" ||
  fail "with no job guaranteed, firstfit (which knows no priority) ran otherwise"
grep -q "^simulated (simgpu pairs), iashim / plain mean JCT: [0-9.]* as run, [0-9.]* with perfect predictions (oracle);$" \
  "$out/run/report.txt" || fail "report.txt lacks the simulated iashim / plain line"
grep -q "^  with no job guaranteed (no co-runner throttled): [0-9.]*, [0-9.]* with perfect predictions$" \
  "$out/run/report.txt" || fail "report.txt lacks the line with no job guaranteed"
# The what-if of moving slowed jobs to GPUs that empty: only a policy with
# share control moves one, so plain shards run as in sim/.
cmp -s "$out/run/sim/jobs-firstfit.csv" "$out/run/sim-migrate/jobs-firstfit.csv" ||
  fail "firstfit (which moves no job) ran otherwise in sim-migrate/"
grep -q "^  with each slowed opportunistic job moved to a GPU that empties (on a real cluster, [0-9.]* s a move; live only with --move-jobs): [0-9.]*, [0-9]* moves$" \
  "$out/run/report.txt" || fail "report.txt lacks the line moving jobs to empty GPUs"
grep -q "^  plain with every guaranteed job on a whole GPU (--gres=gpu:1, the rest shards): mean JCT [0-9.]* s, iashim / that [0-9.]*$" \
  "$out/run/report.txt" || fail "report.txt lacks the line with guaranteed jobs on whole GPUs"
[[ -s "$out/run/jct.png" ]] || fail "no jct.png"
# Under iashim's share control no guaranteed job is simulated past its 10%.
awk -F, '$1 == "iashim" && $2 == "sim" && $3 == "guaranteed_max_run_slowdown" { exit !($4 <= 1.1001) }' \
  "$out/run/summary.csv" || fail "a guaranteed job past 1.10 under iashim (sim)"
awk -F, '$1 == "iashim" && $2 == "sim_v100" && $3 == "guaranteed_max_run_slowdown" { exit !($4 <= 1.1001) }' \
  "$out/run/summary.csv" || fail "a guaranteed job past 1.10 under iashim (sim, measured V100 pairs)"

# --- overwritten in place while it runs (an editor saving it, a checkout
# writing into it), a copy goes on as it was read: its body is one block,
# read whole before it starts.
mkdir -p "$out/copy"
cp -r "$repo/scripts" "$out/copy/scripts"
ln -s "$repo/bench" "$out/copy/bench"
"$out/copy/scripts/live-replay.sh" --trace "$trace" --sim-only --jobs 12 --start 120 --time-scale 100 \
  --out "$out/edited" --build-dir "$build" >"$out/edited.log" 2>&1 &
copy_pid=$!
for _ in $(seq 200); do [[ -s $out/edited.log ]] && break; sleep 0.05; done
[[ -s $out/edited.log ]] || fail "the copy printed nothing in 10 s"
awk 'BEGIN { for (i = 0; i < 20000; i++) print "exit 7" }' >"$out/copy/scripts/live-replay.sh"
kill -0 "$copy_pid" 2>/dev/null || fail "the copy ended before it was overwritten: that proves nothing"
wait "$copy_pid" || { cat "$out/edited.log"; fail "overwritten while it ran, the copy failed"; }
cmp -s "$out/run/summary.csv" "$out/edited/summary.csv" ||
  fail "overwritten while it ran, the copy's summary.csv differs from the first run's"

# --- simgpu's throughputs are computed once per tool and profiles and kept in
# the build tree: the run's copy is a kept one, and a change to the profiles
# computes them again (its file removed here: the build tree is not the test's).
kept_one=no
for f in "$build"/replay-cache/simgpu-throughputs-*.json; do
  cmp -s "$f" "$out/run/simgpu-throughputs.json" && kept_one=yes
done
[[ $kept_one == yes ]] || fail "no file in $build/replay-cache is the run's simgpu-throughputs.json"
mkdir -p "$out/changed/bench/data"
cp -r "$repo/scripts" "$out/changed/scripts"
for d in "$repo"/bench/*; do [[ $d == */data ]] || ln -s "$d" "$out/changed/bench/"; done
for d in "$repo"/bench/data/*; do [[ $d == */models ]] || ln -s "$d" "$out/changed/bench/data/"; done
cp -r "$repo/bench/data/models" "$out/changed/bench/data/models"
echo "# a line that changes no profile" >>"$out/changed/bench/data/models/README.md"
before=$(ls "$build"/replay-cache)
cache_before=$before  # the trap removes what the run adds, even if a check below fails
"$out/changed/scripts/live-replay.sh" --trace "$trace" --sim-only --jobs 12 --start 120 --time-scale 100 \
  --out "$out/changed-run" --build-dir "$build" >"$out/changed.log" 2>&1 || { cat "$out/changed.log"; fail "changed profiles: failed"; }
added=$(comm -13 <(echo "$before") <(ls "$build"/replay-cache))
[[ $(wc -w <<<"$added") -eq 1 ]] || fail "changed profiles kept $(wc -w <<<"$added") new throughputs files, not 1"
rm -f "$build/replay-cache/$added"
cache_before=""
cmp -s "$out/run/summary.csv" "$out/changed-run/summary.csv" ||
  fail "the same profiles computed again gave another summary.csv"

# --- what it refuses, with exit status 2 and the argument named.
refuses() {  # TEXT ARGS...: exit 2, and TEXT in stderr
  local text=$1 rc=0
  shift
  "$repo/scripts/live-replay.sh" "$@" --sim-only --out "$out/bad" --build-dir "$build" >/dev/null 2>"$out/err" || rc=$?
  [[ $rc -eq 2 ]] || fail "$* exited $rc, not 2"
  grep -q -- "$text" "$out/err" || fail "$*: stderr does not say '$text': $(cat "$out/err")"
}
refuses "--trace is required"
refuses "not a readable file" --trace "$out/none.trace"
refuses "--jobs must be an integer 1..200" --trace "$trace" --jobs 0
refuses "--time-scale must be auto or a number" --trace "$trace" --time-scale fast
refuses "unknown mode 'shards'" --trace "$trace" --modes plain,shards
refuses "--guaranteed-every must be" --trace "$trace" --guaranteed-every -1
refuses "pass --start" --trace "$repo/bench/data/gavel/msr-seed0/2869ce.trace" --max-gpus-per-job 4
refuses "--max-gpus-per-job must be an integer 1..12" --trace "$trace" --max-gpus-per-job 16
refuses "--max-gpus-per-job must be an integer 1..8" --trace "$trace" --nodes 2 --max-gpus-per-job 12
refuses "fewer than 40 jobs of at most 12 GPUs" --trace "$repo/bench/data/gavel/msr-seed0/23dbec.trace"
refuses "unknown argument '--bogus'" --trace "$trace" --bogus
refuses "--queue must be reserve, greedy or slurm (got 'fifo')" --trace "$trace" --queue fifo
refuses "--gangs-take-busy-gpus must be yes, no or auto (got 'maybe')" --trace "$trace" --gangs-take-busy-gpus maybe
refuses "--gangs-take-busy-gpus yes needs --queue slurm" --trace "$trace" --queue greedy --gangs-take-busy-gpus yes
refuses "--status-every must be an integer 1..60 (got '0.5')" --trace "$trace" --status-every 0.5
echo "live-replay --sim-only: passed"
