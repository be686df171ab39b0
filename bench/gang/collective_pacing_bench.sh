#!/usr/bin/env bash
# What a throttled gang's waiting collectives cost a co-runner, with and
# without collective pacing (libiashim/src/collective_pacer.h). Two simulated
# V100s: a job on GPU 0 as a guaranteed job would run (unthrottled), an
# unthrottled job on GPU 1 that slows the gang's rank there, and a 2-rank gang
# across both at a static share (IASHIM_SHARE), with IASHIM_PACE_COLLECTIVES
# off then on, interleaved, `--runs` times per share. Prints per share and
# mode the GPU-0 job's iteration time against its own alone (measured in this
# run), the gang's, and what the GPU-0 job loses per gang iteration (its
# slowdown times the gang's iteration time: the harm a throttled gang does
# for each step of progress). Simulated (simgpu): see bench/gang/README.md.
#
#   bench/gang/collective_pacing_bench.sh [--build-dir DIR] [--runs N]
#       [--shares A,B,...] [--seconds S] [--victim M] [--gang-model M] [--skew-model M]
# (M: a profile of bench/data/models/, e.g. lstm, transformer.)
set -euo pipefail

usage() {
  sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
  echo "defaults: --build-dir build --runs 2 --shares 0.05,0.2 --seconds 8"
  echo "          --victim transformer --gang-model lstm --skew-model resnet50"
}

build=build
runs=2
shares=0.05,0.2
seconds=8
victim=transformer
gang_model=lstm
skew_model=resnet50
# shellcheck disable=SC2034  # read by bench_args.sh
bench=collective_pacing_bench.sh
# shellcheck source=bench_args.sh
source "$(dirname "$0")/bench_args.sh"
while [[ $# -gt 0 ]]; do
  case $1 in
    --build-dir) build=${2:?--build-dir needs a value}; shift 2 ;;
    --runs) number --runs "${2:-}" 1 20; runs=$2; shift 2 ;;
    --shares) shares=${2:?--shares needs a value}; shift 2 ;;
    --seconds) number --seconds "${2:-}" 3 120; seconds=$2; shift 2 ;;
    --victim) model --victim "${2:-}"; victim=$2; shift 2 ;;
    --gang-model) model --gang-model "${2:-}"; gang_model=$2; shift 2 ;;
    --skew-model) model --skew-model "${2:-}"; skew_model=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "collective_pacing_bench.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
IFS=, read -r -a share_list <<<"$shares"
for s in "${share_list[@]}"; do number --shares "$s" 0.01 1; done
build=$(cd "$build" 2>/dev/null && pwd) || { echo "collective_pacing_bench.sh: no build directory" >&2; exit 2; }
fakejob=$build/bench/iashim-fakejob
shim=$build/libiashim/libiashim.so
for f in "$fakejob" "$build/simgpu/libcuda.so.1" "$shim"; do
  [[ -x $f || -f $f ]] || { echo "collective_pacing_bench.sh: $f is missing: build first" >&2; exit 2; }
done

tmp=$(mktemp -d)
prefix="iashim-pacing-$$"
export LD_LIBRARY_PATH="$build/simgpu"
export SIMGPU_DEVICES="2xTesla V100-SXM2-32GB:32GiB:80"
# shellcheck source=bench_jobs.sh
source "$(dirname "$0")/bench_jobs.sh"

# One round in namespace TAG: the victim alone on GPU 0 when SHARE is "alone",
# else beside the gang at SHARE (pacing PACE) and the skew job on GPU 1.
# Sets victim_ms and gang_ms.
round() {  # round TAG SHARE PACE
  export SIMGPU_NAMESPACE="$prefix-$1"
  local gang=()
  if [[ $2 != alone ]]; then
    timeout 300 "$fakejob" --model "$skew_model" --device 1 --seconds $((seconds + 3)) --quiet \
      >"$tmp/skew.out" 2>&1 &
    pids+=($!)
    IASHIM_SHARE=$2 IASHIM_PACE_COLLECTIVES=$3 LD_PRELOAD="$shim" \
      timeout 300 "$fakejob" --model "$gang_model" --ranks 2 --seconds $((seconds + 2)) --quiet \
      >"$tmp/gang.out" 2>&1 &
    gang=($!)
    pids+=($!)
    sleep 1
  fi
  LD_PRELOAD="$shim" timeout 300 "$fakejob" --model "$victim" --device 0 --seconds "$seconds" \
    --quiet >"$tmp/victim.out" 2>&1 || {
    echo "collective_pacing_bench.sh: the $victim job failed: $(cat "$tmp/victim.out")" >&2
    exit 1
  }
  victim_ms=$(summary "$tmp/victim.out")
  gang_ms=-
  if [[ ${#gang[@]} -gt 0 ]]; then
    wait "${gang[@]}" || { echo "collective_pacing_bench.sh: the gang failed: $(cat "$tmp/gang.out")" >&2; exit 1; }
    gang_ms=$(summary "$tmp/gang.out" 0)
  fi
  stop_all
}

round 0 alone -
alone_ms=$victim_ms
echo "$victim alone on GPU 0: $alone_ms ms per iteration; gang: $gang_model, 2 ranks (GPU 0, GPU 1);"
echo "$skew_model unthrottled on GPU 1 (simulated: simgpu on this machine)"
echo
echo "| share | pacing | run | $victim ms/iteration | its slowdown | gang ms/iteration | $victim's loss per gang iteration, ms |"
echo "|---|---|---|---|---|---|---|"
tag=1
for share in "${share_list[@]}"; do
  for run in $(seq 1 "$runs"); do
    for pace in off on; do
      round "$tag" "$share" "$pace"
      tag=$((tag + 1))
      awk -v s="$share" -v p="$pace" -v r="$run" -v v="$victim_ms" -v a="$alone_ms" -v g="$gang_ms" \
        'BEGIN { d = v / a - 1; printf "| %s | %s | %d | %.1f | %+.1f%% | %.1f | %.1f |\n", s, p, r, v, 100 * d, g, d * g }'
    done
  done
done
