#!/usr/bin/env bash
# What a throttled gang across two nodes costs a co-runner of one of its
# ranks, with collective pacing off and on (libiashim/src/collective_pacer.h).
# Two simulated nodes on this machine, A and B (each process in a UTS
# namespace named after its node, each node its own simgpu namespace, one
# SIMGPU_FABRIC between them, as scripts/cluster-up.sh has it), five
# simulated V100s each. An 8-rank gang at a static share (IASHIM_SHARE):
# ranks 0-3 alone on A's GPUs 0-3, ranks 4-6 on B's GPUs 0-2 each beside two
# unthrottled jobs (so they lag), rank 7 on B's GPU 3. The victim (as a
# guaranteed job would run: unthrottled) and an opportunistic job at the same
# share share B's GPU 3 with rank 7, or, in the "no rank" rows, B's GPU 4 (the
# same processes on the machine, no rank beside the victim); in the "rank
# only" rows the victim shares it with rank 7 alone (the opportunistic job on
# B's GPU 4). Rank 7 is early to every all-reduce and spins in it beside the
# victim unless it holds it.
# Prints per round the victim's iteration time against its own alone
# (measured in this run), the gang's, and what rank 7 held per collective.
# With --baseline-shim, the gang also runs with pacing on under that
# libiashim.so (another commit's build), interleaved with this build's.
# Needs root (unshare -u). Simulated (simgpu): see bench/gang/README.md.
#
#   bench/gang/cross_node_pacing_bench.sh [--build-dir DIR] [--runs N]
#       [--share S] [--seconds S] [--victim M] [--gang-model M] [--baseline-shim FILE]
#       [--cases LIST]
# (M: a profile of bench/data/models/, e.g. lstm, transformer. LIST: of off,
# on, no-rank, rank-only, comma-separated, in the order each run takes them.)
set -euo pipefail

usage() {
  sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'
  echo "defaults: --build-dir build --runs 2 --share 0.05 --seconds 20"
  echo "          --victim transformer --gang-model lstm --cases off,on,no-rank,rank-only"
}

build=build
runs=2
share=0.05
seconds=20
victim=transformer
gang_model=lstm
baseline_shim=""
cases=(off on no-rank rank-only)
# shellcheck disable=SC2034  # read by bench_args.sh
bench=cross_node_pacing_bench.sh
# shellcheck source=bench_args.sh
source "$(dirname "$0")/bench_args.sh"
while [[ $# -gt 0 ]]; do
  case $1 in
    --build-dir) build=${2:?--build-dir needs a value}; shift 2 ;;
    --runs) number --runs "${2:-}" 1 20; runs=$2; shift 2 ;;
    --share) number --share "${2:-}" 0.01 1; share=$2; shift 2 ;;
    --seconds) number --seconds "${2:-}" 3 120; seconds=$2; shift 2 ;;
    --victim) model --victim "${2:-}"; victim=$2; shift 2 ;;
    --gang-model) model --gang-model "${2:-}"; gang_model=$2; shift 2 ;;
    --baseline-shim) baseline_shim=${2:?--baseline-shim needs a file}; shift 2 ;;
    --cases)
      IFS=, read -r -a cases <<<"${2:?--cases needs a list}"
      for c in "${cases[@]}"; do
        [[ $c =~ ^(off|on|no-rank|rank-only)$ ]] ||
          { echo "$bench: --cases: '$c' is not one of off, on, no-rank, rank-only" >&2; exit 2; }
      done
      shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "$bench: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
build=$(cd "$build" 2>/dev/null && pwd) || { echo "$bench: no build directory" >&2; exit 2; }
fakejob=$build/bench/iashim-fakejob
shim=$build/libiashim/libiashim.so
for f in "$fakejob" "$build/simgpu/libcuda.so.1" "$shim"; do
  [[ -x $f || -f $f ]] || { echo "$bench: $f is missing: build first" >&2; exit 2; }
done
if [[ -n $baseline_shim ]]; then
  [[ -f $baseline_shim ]] || { echo "$bench: --baseline-shim $baseline_shim: no such file" >&2; exit 2; }
  baseline_shim=$(cd "$(dirname "$baseline_shim")" && pwd)/$(basename "$baseline_shim")
fi
if [[ $(id -u) != 0 ]] || ! unshare -u true 2>/dev/null; then
  echo "$bench: needs root and UTS namespaces (unshare -u): simgpu tells nodes apart by" \
    "hostname, and each simulated node here is a namespace with its own" >&2
  exit 2
fi

tmp=$(mktemp -d)
prefix="iashim-xpacing-$$"
export LD_LIBRARY_PATH="$build/simgpu"
export SIMGPU_DEVICES="5xTesla V100-SXM2-32GB:32GiB:80"
export SIMGPU_FABRIC="$tmp/fabric"
mkdir "$SIMGPU_FABRIC"
# shellcheck source=bench_jobs.sh
source "$(dirname "$0")/bench_jobs.sh"

# on ROUND NODE: sets `node` to the command prefix that runs a command on
# simulated node NODE (its hostname and simgpu namespace) under `timeout`, so
# that `"${node[@]}" ENV... COMMAND... &` leaves the timeout's pid in $!
# (stop_all kills its child first, then it).
on() {
  node=(timeout 300 unshare -u bash -c 'hostname "$1"; shift; exec env "$@"' bash "node$2"
        SIMGPU_NAMESPACE="$prefix-$1-$2")
}

# One round: the victim alone on B's GPU 3 when LAYOUT is "alone"; else the
# gang at $share under GANG_SHIM with pacing PACE, the victim and the
# opportunistic job on B's GPU 3 ("rank") or 4 ("no rank"), or the victim on
# 3 and the job on 4 ("rank only"). Sets victim_ms, gang_ms and held_ms.
round() {  # round TAG LAYOUT PACE [GANG_SHIM]
  local tag=$1 layout=$2 pace=$3 gang_shim=${4:-$shim} gpu=3 gang=()
  local loaders=(resnet50 transformer resnet18 lstm recoder resnet50)
  [[ $layout != "no rank" ]] || gpu=4
  if [[ $layout != alone ]]; then
    for g in 0 1 2; do
      for k in 1 2; do
        on "$tag" B
        "${node[@]}" "$fakejob" --model "${loaders[g + k]}" --device "$g" --seconds $((seconds + 10)) \
          --quiet >/dev/null 2>&1 &
        pids+=($!)
      done
    done
    on "$tag" B
    local job_gpu=$gpu
    [[ $layout != "rank only" ]] || job_gpu=4
    "${node[@]}" LD_PRELOAD="$shim" IASHIM_SHARE="$share" "$fakejob" --model "$gang_model" \
      --device "$job_gpu" --seconds $((seconds + 10)) --quiet >/dev/null 2>&1 &
    pids+=($!)
    for r in 0 1 2 3 4 5 6 7; do
      local host=A
      [[ $r -lt 4 ]] || host=B
      on "$tag" "$host"
      "${node[@]}" LD_PRELOAD="$gang_shim" IASHIM_SHARE="$share" IASHIM_PACE_COLLECTIVES="$pace" \
        IASHIM_LOG=info RANK=$r LOCAL_RANK=$((r % 4)) WORLD_SIZE=8 MASTER_ADDR=nodeA \
        MASTER_PORT=29500 "$fakejob" --model "$gang_model" --device $((r % 4)) \
        --seconds $((seconds + 8)) --quiet >"$tmp/rank$r.out" 2>&1 &
      gang+=($!)
      pids+=($!)
    done
    sleep 4
  fi
  on "$tag" B
  "${node[@]}" LD_PRELOAD="$shim" "$fakejob" --model "$victim" --device "$gpu" --seconds "$seconds" \
    --quiet >"$tmp/victim.out" 2>&1 || {
    echo "$bench: the $victim job failed: $(cat "$tmp/victim.out")" >&2
    exit 1
  }
  victim_ms=$(summary "$tmp/victim.out")
  gang_ms=- held_ms=-
  if [[ ${#gang[@]} -gt 0 ]]; then
    wait "${gang[@]}" || { echo "$bench: the gang failed: $(cat "$tmp"/rank*.out)" >&2; exit 1; }
    gang_ms=$(summary "$tmp/rank7.out" 7)
    held_ms=$(sed -n 's/.* collectives_paced=\([0-9]*\) collectives_paced_ms=\([0-9.]*\).*/\1 \2/p' \
      "$tmp/rank7.out" | awk '{ printf "%.1f", ($1 > 0 ? $2 / $1 : 0) }')
  fi
  stop_all
}

round 0 alone -
alone_ms=$victim_ms
echo "$victim alone: $alone_ms ms per iteration; gang: $gang_model, 8 ranks on two nodes at share $share;"
echo "ranks 4-6 each beside two unthrottled jobs (simulated: simgpu on this machine)"
echo
echo "| $victim beside | pacing (gang's shim) | run | $victim ms/iteration | its slowdown | gang ms/iteration | rank 7 held per collective, ms |"
echo "|---|---|---|---|---|---|---|"
tag=1
[[ -z $baseline_shim ]] || cases=(off baseline on no-rank rank-only)
for run in $(seq 1 "$runs"); do
  for case in "${cases[@]}"; do
    # Where the victim runs, the gang's pacing and shim, and the row's words for them.
    case $case in
      off) layout=rank pace=off gang_shim=$shim label=off ;;
      baseline) layout=rank pace=on gang_shim=$baseline_shim label="on (baseline)" ;;
      on) layout=rank pace=on gang_shim=$shim label=on ;;
      no-rank) layout="no rank" pace=on gang_shim=$shim label=on ;;
      rank-only) layout="rank only" pace=on gang_shim=$shim label=on ;;
    esac
    round "$tag" "$layout" "$pace" "$gang_shim"
    tag=$((tag + 1))
    awk -v l="$layout" -v p="$label" -v r="$run" -v v="$victim_ms" -v a="$alone_ms" -v g="$gang_ms" \
      -v h="$held_ms" 'BEGIN { what = l == "rank" ? "rank 7 + a job at the share" : l == "rank only" ? "rank 7 (the job at the share on the next GPU)" : "a job at the share (rank 7 on the next GPU)"
        printf "| %s | %s | %d | %.1f | %+.1f%% | %.1f | %s |\n", what, p, r, v, 100 * (v / a - 1), g, h }'
  done
done
