#!/usr/bin/env bash
# Many segments through the live replay's simulator: how `--iashim` fares
# against plain Slurm shards beyond the nine segments replayed live, worst
# case beside the median. Each segment is `live-replay.sh --sim-only` (a few
# seconds; no root, no cluster): the same cut of the trace, the same
# iashim-clustersim runs, on simgpu's pair throughputs and on Gavel's
# measured V100 pairs.
#
#   scripts/replay/sim-survey.sh [--traces "ID ..."] [--starts FIRST:STEP:LAST]
#                                [--jobs K] [--guaranteed-every M] [--out DIR]
#                                [--build-dir DIR]
#
#   --traces      seed-0 traces by id (default: every one in
#                 bench/data/gavel/msr-seed0/)
#   --starts      segment starts, in jobs of the trace (default 0:40:440)
#   --jobs        jobs per segment (default 40, the live replay's)
#   --guaranteed-every M  every M-th job guaranteed, the rest opportunistic
#                 (default 4, the live replay's; 0: none)
#   --out         where each segment's run goes (default: a new temporary dir)
#   --build-dir   the build with iashim-clustersim (default: build)
#
# Prints one row per segment (segments a trace is too short for are
# counted, not run), then the summary. With jobs guaranteed, `--iashim` is
# also set beside the protection plain Slurm has without it: every
# guaranteed job on a whole GPU (--gres=gpu:1), the rest on shards
# (ratio_whole, simgpu pairs), and as it would fare moving slowed jobs to
# GPUs that empty, a what-if (ratio_migrate, live-replay.sh's sim-migrate/).
# Exit 1 if the simulator failed on any segment (named), 2 on a bad argument.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
traces="" starts="0:40:440" jobs=40 every=4 out="" build="$repo/build"

die() { echo "sim-survey.sh: $*" >&2; exit 2; }
need_value() { [[ $# -ge 2 && -n "$2" ]] || die "$1 needs a value"; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --traces) need_value "$@"; traces=$2 ;;
    --starts) need_value "$@"; starts=$2 ;;
    --jobs) need_value "$@"; jobs=$2 ;;
    --guaranteed-every) need_value "$@"; every=$2 ;;
    --out) need_value "$@"; out=$2 ;;
    --build-dir) need_value "$@"; build=$2 ;;
    -h | --help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
  shift 2
done
[[ "$starts" =~ ^([0-9]+):([1-9][0-9]*):([0-9]+)$ ]] ||
  die "--starts '$starts': want FIRST:STEP:LAST, whole numbers, STEP at least 1 (e.g. 0:40:440)"
first=${BASH_REMATCH[1]} step=${BASH_REMATCH[2]} last=${BASH_REMATCH[3]}
((first <= last)) || die "--starts '$starts': FIRST is past LAST"
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "--jobs '$jobs': want a whole number of at least 1"
[[ "$every" =~ ^[0-9]+$ ]] && ((10#$every <= 1000)) ||
  die "--guaranteed-every '$every': want a whole number 0..1000 (0: no job guaranteed)"
[[ -x "$build/coordinator/clustersim/iashim-clustersim" ]] ||
  die "no iashim-clustersim in $build (build first, or pass --build-dir)"
trace_dir="$repo/bench/data/gavel/msr-seed0"
if [[ -z "$traces" ]]; then
  traces=$(cd "$trace_dir" && ls -- *.trace | sed 's/\.trace$//' | tr '\n' ' ')
fi
for t in $traces; do
  [[ "$t" =~ ^[0-9a-f]+$ && -f "$trace_dir/$t.trace" ]] ||
    die "--traces: no trace '$t' in $trace_dir (ids like 6c71a0)"
done
[[ -n "$out" ]] || out=$(mktemp -d /tmp/sim-survey.XXXXXX)
mkdir -p "$out"

rows="$out/rows.tsv" failed=() short=0
printf 'trace\tstart\tload\tplain_jct_s\tiashim_jct_s\tratio\tratio_v100\tplain_g_max\tiashim_g_max\tratio_whole\tratio_migrate\n' >"$rows"
# metric MODE SOURCE NAME < summary.csv
metric() { awk -F, -v m="$1" -v s="$2" -v n="$3" '$1 == m && $2 == s && $3 == n { print $4 }'; }
for t in $traces; do
  for ((s = first; s <= last; s += step)); do
    dir="$out/$t-$s"
    if ! "$repo/scripts/live-replay.sh" --trace "$trace_dir/$t.trace" --start "$s" --jobs "$jobs" \
      --guaranteed-every "$every" --out "$dir" --build-dir "$build" --sim-only >"$dir.log" 2>&1; then
      if grep -q "the segment: the trace has" "$dir.log"; then
        short=$((short + 1))
      else
        failed+=("$t from $s ($(tail -1 "$dir.log"))")
      fi
      continue
    fi
    csv="$dir/summary.csv"
    # Offered load: GPU-seconds alone over the span alone (pick_segment.awk's).
    load=$(awk -F'\t' '{ w += $6 * $9; if ($5 + $6 > l) l = $5 + $6 } END { printf "%.1f", w / l }' "$dir/jobs.tsv")
    pj=$(metric plain sim mean_jct_s <"$csv") ij=$(metric iashim sim mean_jct_s <"$csv")
    pv=$(metric plain sim_v100 mean_jct_s <"$csv") iv=$(metric iashim sim_v100 mean_jct_s <"$csv")
    pg=$(metric plain sim long_guaranteed_max_run_slowdown <"$csv")
    ig=$(metric iashim sim long_guaranteed_max_run_slowdown <"$csv")
    # Plain with guaranteed jobs on whole GPUs: iashim-clustersim's own
    # summary (live-replay.sh simulates it only when some job is guaranteed).
    wj=""
    if ((10#$every > 0)); then
      wj=$(jq -r 'select(.policy == "firstfit-whole") | .mean_jct_s' "$dir/sim/summary.jsonl")
    fi
    # --iashim moving slowed jobs to GPUs that empty (a what-if, sim-migrate/).
    mj=$(jq -r 'select(.policy == "iashim") | .mean_jct_s' "$dir/sim-migrate/summary.jsonl")
    awk -v t="$t" -v s="$s" -v load="$load" -v pj="$pj" -v ij="$ij" -v pv="$pv" -v iv="$iv" \
      -v pg="${pg:--}" -v ig="${ig:--}" -v wj="$wj" -v mj="$mj" 'BEGIN {
        rw = wj + 0 > 0 ? sprintf("%.3f", ij / wj) : "-"
        printf "%s\t%d\t%s\t%.2f\t%.2f\t%.3f\t%.3f\t%s\t%s\t%s\t%.3f\n", t, s, load, pj, ij, ij / pj, iv / pv, pg, ig, rw, mj / pj }' |
      tee -a "$rows"
  done
done

# The summary: median, 90th percentile and worst; ahead or behind by more
# than half a percent.
awk -F'\t' -v short="$short" 'NR > 1 {
    n++; r[n] = $6; v[n] = $7; mg[n] = $11
    if ($10 != "-") { w++; rw[w] = $10 }
    if ($9 != "-") { m++; g[m] = $9; over += $9 > 1.10 }
    if ($8 != "-") { pm++; pg[pm] = $8; pover += $8 > 1.10 }
  }
  function sort(a, k,   i, j, x) { for (i = 2; i <= k; i++) { x = a[i]; for (j = i - 1; j > 0 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x } }
  function q(a, k, p,   x, i) { x = p * (k - 1) + 1; i = int(x); return i < k ? a[i] + (x - i) * (a[i + 1] - a[i]) : a[k] }
  function line(name, a, k,   i, ahead, behind) {
    for (i = 1; i <= k; i++) { ahead += a[i] < 0.995; behind += a[i] > 1.005 }
    sort(a, k)
    printf "%-44s median %.3f, 90th pct %.3f, worst %.3f, best %.3f; ahead on %d, behind on %d\n", name, q(a, k, 0.5), q(a, k, 0.9), a[k], a[1], ahead, behind
  }
  function guaranteed(name, a, k, over) {
    sort(a, k)
    printf "%-44s median %.3f, 90th pct %.3f, worst %.3f; over 1.10 on %d of %d segments with one\n", name, q(a, k, 0.5), q(a, k, 0.9), a[k], over, k
  }
  END {
    if (n == 0) { print "no segment ran"; exit }
    printf "%d segments (%d left out: the trace too short from there)\n", n, short
    line("--iashim / plain mean JCT, simgpu pairs:", r, n)
    line("--iashim / plain mean JCT, measured V100:", v, n)
    if (w > 0) line("--iashim / plain, guaranteed on whole GPUs:", rw, w)
    line("--iashim moving jobs to empty GPUs / plain:", mg, n)
    if (m > 0) guaranteed("--iashim long guaranteed max run slowdown:", g, m, over)
    if (pm > 0) guaranteed("plain shards, the same:", pg, pm, pover)
  }' "$rows"
echo "rows: $rows"
if ((${#failed[@]} > 0)); then
  printf 'sim-survey.sh: the simulator failed on %d segment(s):\n' "${#failed[@]}" >&2
  printf '  %s\n' "${failed[@]}" >&2
  exit 1
fi
