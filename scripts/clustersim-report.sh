#!/usr/bin/env bash
# The cluster-simulation report: a load sweep of iashim-clustersim over Gavel's
# merged seed-0 traces (every policy at every load point), the robustness
# harness (every policy on variants of the traces), the Alibaba 2023 scale
# replay, and PNG plots.
#
#   scripts/clustersim-report.sh [--build-dir DIR] [--out DIR] [--quick]
#
#   --build-dir DIR  where iashim-clustersim was built (default: build); the
#                    binary is DIR/coordinator/clustersim/iashim-clustersim
#   --out DIR        where the report goes (default: DIR of --build-dir plus
#                    /clustersim-report, i.e. build/clustersim-report)
#   --quick          a small sweep (3 traces, 2 load points, 2 variants at one,
#                    1,000 Alibaba pods), for CI
#
# Writes to the out dir:
#   sweep.csv               one row per load point and policy
#   points/gpus-N/          each point's summary.csv, summary.json, jobs-<policy>.csv,
#                           summary.jsonl (its --json output) and stderr.txt
#   plot-data/              the plotted series, as gnuplot read them
#   jct-cdf.png             JCT CDF per policy at the heaviest point (log x)
#   jct-vs-load.png         mean JCT per policy against offered load
#   robustness-N.jsonl      per policy, median and worst over 20 variants (variant
#                           seed 2) at N GPUs, for N = 384 and 320
#   robustness.png          JCT / oracle per policy, median and worst, per point
#   alibaba-timed.json      the Alibaba replay at the trace's times (iashim)
#   alibaba-fill-P.json     the Alibaba replay filling the cluster (ATC'23 method),
#                           for P = iashim, bestfit, firstfit, fgd and iashim-prior
#                           (iashim assuming its interference prior, not quotas)
#
# Offered load at a point = the GPUs the workload keeps busy when nothing
# queues (exclusive's gpu_util x GPUs at the lightest point) / the point's GPUs.
# Needs bash, awk, sort and gnuplot (pngcairo). Exit status: 0 done, 1 a run
# or a plot failed, 2 a bad argument.
set -euo pipefail

usage() { sed -n '2,34p' "$0" | sed 's/^# \{0,1\}//'; }
die_usage() {
  echo "clustersim-report.sh: $*" >&2
  echo "see: scripts/clustersim-report.sh --help" >&2
  exit 2
}
die() {
  echo "clustersim-report.sh: $*" >&2
  exit 1
}

root="$(cd "$(dirname "$0")/.." && pwd)"
build_dir=""
out_dir=""
quick=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir|--out)
      [[ $# -ge 2 && -n "$2" && "$2" != --* ]] || die_usage "$1 needs a directory"
      if [[ "$1" == --build-dir ]]; then build_dir="$2"; else out_dir="$2"; fi
      shift 2 ;;
    --build-dir=*)
      build_dir="${1#*=}"
      [[ -n "$build_dir" ]] || die_usage "--build-dir needs a directory"
      shift ;;
    --out=*)
      out_dir="${1#*=}"
      [[ -n "$out_dir" ]] || die_usage "--out needs a directory"
      shift ;;
    --quick) quick=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die_usage "unknown argument '$1'" ;;
  esac
done

# Relative paths are taken from the repository root, like the defaults.
abs() { if [[ "$1" == /* ]]; then echo "$1"; else echo "$root/$1"; fi; }
build_dir="$(abs "${build_dir:-build}")"
out_dir="$(abs "${out_dir:-$build_dir/clustersim-report}")"
sim="$build_dir/coordinator/clustersim/iashim-clustersim"
[[ -d "$build_dir" ]] || die_usage "--build-dir $build_dir: no such directory"
[[ -x "$sim" ]] || die_usage "--build-dir $build_dir: no $sim (build the iashim-clustersim target)"
command -v gnuplot >/dev/null || die "gnuplot is not installed (scripts/setup.sh installs it)"
gnuplot -e 'set terminal' 2>&1 | grep -q pngcairo || die "gnuplot has no pngcairo terminal"

gavel="$root/bench/data/gavel"
alibaba="$root/bench/data/alibaba-v2023"
traces=("$gavel"/msr-seed0/*.trace)
[[ -e "${traces[0]}" ]] || die "no traces in $gavel/msr-seed0"
policies="exclusive,firstfit,iadeep,iashim,oracle"
if [[ $quick -eq 1 ]]; then
  traces=("${traces[@]:0:3}")
  points=(256 48)        # light, heavy: 3 traces keep ~40-60 GPUs busy
  robust_points=(48)
  variants=2
  alibaba_args=(--max-pods 1000)
else
  points=(1024 512 384 320 256)  # light to heavy: the 15 traces keep ~200 GPUs busy
  robust_points=(384 320)
  variants=20
  alibaba_args=()
fi

mkdir -p "$out_dir/points" || die "cannot create $out_dir"
echo "clustersim-report: ${#traces[@]} traces, ${#points[@]} load points, policies $policies"
echo "clustersim-report: writing to $out_dir"

# --- The load sweep -------------------------------------------------------
for gpus in "${points[@]}"; do
  dir="$out_dir/points/gpus-$gpus"
  mkdir -p "$dir"
  echo "clustersim-report: $gpus GPUs ..."
  "$sim" --trace "${traces[@]}" --throughputs "$gavel/simulation_throughputs.json" \
    --gpu-type v100 --gpus "$gpus" --policy "$policies" --out "$dir" --json \
    >"$dir/summary.jsonl" 2>"$dir/stderr.txt" ||
    die "iashim-clustersim failed at $gpus GPUs (see $dir/stderr.txt)"
  [[ -s "$dir/summary.csv" ]] || die "no $dir/summary.csv"
done

# sweep.csv: each point's summary.csv rows, columns picked by header name (the
# policy is the only text field, so plain comma splitting is safe there).
fields="policy,jobs,skipped,mean_jct_s,p50_jct_s,p99_jct_s,makespan_s,gpu_util,mean_slowdown,p99_slowdown,later_than_exclusive,gpu_hours,energy_per_job_kwh"
{
  echo "gpus,load,$fields"
  for gpus in "${points[@]}"; do
    awk -F, -v want="$fields" -v gpus="$gpus" '
      NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; n = split(want, w, ",")
                for (i = 1; i <= n; i++) if (!(w[i] in col)) { print "missing column " w[i] > "/dev/stderr"; exit 1 }
                next }
      { line = gpus ","; for (i = 1; i <= n; i++) line = line (i > 1 ? "," : "") $(col[w[i]]); print line }
    ' "$out_dir/points/gpus-$gpus/summary.csv" | sed 's/^\([^,]*\),/\1,LOAD,/'
  done
} >"$out_dir/sweep.tmp" || die "cannot read the points' summary.csv"

# Offered load: exclusive's busy GPUs at the lightest point (the most GPUs)
# over each point's GPUs.
lightest=$(printf '%s\n' "${points[@]}" | sort -n | tail -1)
demand=$(awk -F, -v g="$lightest" 'NR > 1 && $1 == g && $3 == "exclusive" { print $10 * g }' \
  "$out_dir/sweep.tmp")
[[ -n "$demand" ]] || die "no exclusive row at $lightest GPUs"
awk -F, -v OFS=, -v d="$demand" 'NR == 1 { print; next } { $2 = sprintf("%.3f", d / $1); print }' \
  "$out_dir/sweep.tmp" >"$out_dir/sweep.csv"
rm -f "$out_dir/sweep.tmp"

# --- Robustness: every policy on variants of the traces --------------------
# Variant seed 2: variants the parameters were never looked at on
# (coordinator/clustersim/README.md, "Robustness").
for gpus in "${robust_points[@]}"; do
  echo "clustersim-report: $variants variants at $gpus GPUs ..."
  "$sim" --trace "${traces[@]}" --throughputs "$gavel/simulation_throughputs.json" \
    --gpu-type v100 --gpus "$gpus" --variants "$variants" --variant-seed 2 --json \
    >"$out_dir/robustness-$gpus.jsonl" || die "the robustness run at $gpus GPUs failed"
done

# --- The Alibaba scale replay ---------------------------------------------
alibaba_runs=(timed:iashim fill:iashim fill:bestfit fill:firstfit fill:fgd fill:iashim-prior)
for run in "${alibaba_runs[@]}"; do
  mode="${run%%:*}" policy="${run#*:}"
  name="alibaba-$mode-$policy"
  [[ "$mode" == timed ]] && name="alibaba-timed"
  echo "clustersim-report: Alibaba 2023 replay ($mode, $policy) ..."
  policy_args=(--alibaba-policy "$policy")
  [[ "$policy" == iashim-prior ]] && policy_args=(--alibaba-policy iashim --alibaba-interference prior)
  "$sim" --alibaba-nodes "$alibaba/openb_node_list_gpu_node.csv" \
    --alibaba-pods "$alibaba/openb_pod_list_default.csv" --alibaba-mode "$mode" --json \
    "${policy_args[@]}" ${alibaba_args[@]+"${alibaba_args[@]}"} >"$out_dir/$name.json" ||
    die "the Alibaba replay ($mode, $policy) failed"
done

# --- Plots ----------------------------------------------------------------
heavy=$(printf '%s\n' "${points[@]}" | sort -n | head -1)
IFS=, read -r -a policy_list <<<"$policies"
plot_data="$out_dir/plot-data"
mkdir -p "$plot_data"
cdf_plot=""
for p in "${policy_list[@]}"; do
  jobs="$out_dir/points/gpus-$heavy/jobs-$p.csv"
  [[ -s "$jobs" ]] || die "no $jobs"
  # jct_s is third from the end, whatever commas a quoted job type holds.
  awk -F, 'NR > 1 && $(NF-2) > 0 { print $(NF-2) / 3600 }' "$jobs" | sort -g |
    awk '{ v[NR] = $1 } END { for (i = 1; i <= NR; i++) print v[i], i / NR }' \
      >"$plot_data/cdf-$p.dat"
  cdf_plot+="${cdf_plot:+, }'$plot_data/cdf-$p.dat' using 1:2 with lines lw 2 title '$p'"
  awk -F, -v p="$p" 'NR > 1 && $3 == p { print $2, $6 / 3600 }' "$out_dir/sweep.csv" | sort -g \
    >"$plot_data/load-$p.dat"
done
load_plot=""
for p in "${policy_list[@]}"; do
  load_plot+="${load_plot:+, }'$plot_data/load-$p.dat' using 1:2 with linespoints lw 2 pt 7 title '$p'"
done

gnuplot <<EOF || die "gnuplot failed"
set terminal pngcairo size 900,600 enhanced font 'Sans,11'
set grid
set key top left

set output '$out_dir/jct-cdf.png'
set title "JCT CDF at the heaviest load ($heavy GPUs, Gavel seed-0 traces, v100)"
set logscale x
set xlabel 'job completion time (hours, log scale)'
set ylabel 'fraction of jobs'
set yrange [0:1]
plot $cdf_plot

set output '$out_dir/jct-vs-load.png'
set title 'Mean JCT against offered load (Gavel seed-0 traces, v100)'
unset logscale x
set logscale y
set autoscale y
set key top left
set xlabel 'offered load (busy GPUs without queueing / GPUs)'
set ylabel 'mean JCT (hours, log scale)'
plot $load_plot
EOF

# Robustness plot: per policy, the median and worst JCT / oracle at each point.
json_get() {  # json_get KEY < one JSON object per line: that field of each line
  awk -v k="$1" '{ re = "\"" k "\":[^,}]*"; if (match($0, re)) { s = substr($0, RSTART, RLENGTH)
                   sub(/^[^:]*:/, "", s); gsub(/"/, "", s); print s } }'
}
robust_plot=""
col=0
for gpus in "${robust_points[@]}"; do
  f="$out_dir/robustness-$gpus.jsonl"
  paste <(json_get policy <"$f") <(json_get jct_over_oracle_median <"$f") \
        <(json_get jct_over_oracle_worst <"$f") >"$plot_data/robustness-$gpus.dat"
  robust_plot+="${robust_plot:+, }'$plot_data/robustness-$gpus.dat' using (\$0+$col*0.3):2:2:3 with yerrorbars lw 2 pt 7 title 'median (bar to worst), $gpus GPUs'"
  col=$((col + 1))
done
gnuplot <<EOF || die "gnuplot failed"
set terminal pngcairo size 900,600 enhanced font 'Sans,11'
set grid
set output '$out_dir/robustness.png'
set title "Mean JCT / oracle over $variants variants of the seed-0 traces (variant seed 2)"
set ylabel 'mean JCT / oracle mean JCT'
set xrange [-0.5:4.9]
set xtics ("exclusive" 0, "firstfit" 1, "iadeep" 2, "iashim" 3, "oracle" 4)
set key top right
plot $robust_plot
EOF

# --- Summary --------------------------------------------------------------
echo
echo "Load sweep (mean / p99 JCT in hours; later = jobs finished later than under exclusive)"
awk -F, 'NR == 1 { next }
  { if ($1 != last) { printf "\n%5s GPUs, load %s\n", $1, $2; last = $1
                      printf "  %-10s %10s %10s %6s %8s %6s %8s\n", "policy", "mean_h", "p99_h", "util", "mean_sd", "later", "kWh/job" }
    printf "  %-10s %10.2f %10.2f %6.2f %8.2f %6d %8.1f\n", $3, $6 / 3600, $8 / 3600, $10, $11, $13, $15 }' \
  "$out_dir/sweep.csv"
echo
for gpus in "${robust_points[@]}"; do
  echo "Robustness at $gpus GPUs over $variants variants (JCT ratios: median / worst)"
  f="$out_dir/robustness-$gpus.jsonl"
  paste <(json_get policy <"$f") <(json_get jct_over_oracle_median <"$f") \
        <(json_get jct_over_oracle_worst <"$f") <(json_get jct_over_exclusive_median <"$f") \
        <(json_get jct_over_exclusive_worst <"$f") <(json_get beats_firstfit <"$f") \
        <(json_get beats_iadeep <"$f") <(json_get worse_than_exclusive <"$f") |
    awk '{ printf "  %-10s /oracle %6.3f / %6.3f   /exclusive %6.3f / %6.3f   beat firstfit %s, iadeep %s; worse than exclusive %s\n", $1, $2, $3, $4, $5, $6, $7, $8 }'
done
echo
echo "Alibaba 2023 replay (6,212 GPUs): per-decision latency and fragmentation"
for run in "${alibaba_runs[@]}"; do
  mode="${run%%:*}" policy="${run#*:}"
  name="alibaba-$mode-$policy"
  [[ "$mode" == timed ]] && name="alibaba-timed"
  awk -v mode="$mode $policy" '
    function get(k,   re, s) { re = "\"" k "\":[^,}]*"; if (!match($0, re)) return "?";
                               s = substr($0, RSTART, RLENGTH); sub(/^[^:]*:/, "", s); return s }
    { printf "  %-18s decisions %s, latency p50 %s us, p99 %s us, max %s us; wall %s s; placed %s, waited %s, never placed %s\n",
             mode, get("decisions"), get("latency_p50_us"), get("latency_p99_us"), get("latency_max_us"),
             get("wall_s"), get("placed"), get("waited"), get("never_placed")
      printf "  %-18s peak alloc %s, free on partial GPUs %s (mean %s), unusable by workload %s (mean %s)\n", "",
             get("peak_alloc_rate"), get("peak_frag_partial"), get("frag_partial_mean"),
             get("peak_frag_workload"), get("frag_workload_mean") }' "$out_dir/$name.json"
done
echo
echo "clustersim-report: sweep    $out_dir/sweep.csv"
echo "clustersim-report: plots    $out_dir/jct-cdf.png"
echo "clustersim-report:          $out_dir/jct-vs-load.png"
echo "clustersim-report:          $out_dir/robustness.png"
echo "clustersim-report: Alibaba  $out_dir/alibaba-timed.json $out_dir/alibaba-fill-*.json"
