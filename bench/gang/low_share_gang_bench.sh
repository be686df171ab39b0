#!/usr/bin/env bash
# An opportunistic gang held at low shares, as the control loop holds one
# beside guaranteed jobs: an 8-rank iashim-fakejob gang (resnet18) on two
# simulated nodes of 4 V100s each (their ranks meeting across simgpu's
# fabric), a co-runner (resnet50) unthrottled on each of its GPUs, and the gang
# at static shares (IASHIM_SHARE per node). Prints per share set the gang's
# iteration time against its own alone, that slowdown times the least share
# (1: as slow as its share says; more: slower), and what the co-runners keep
# of their speed alone, all measured in this run. Simulated (simgpu): see
# bench/gang/README.md.
#
#   bench/gang/low_share_gang_bench.sh [--build-dir DIR] [--runs N]
#       [--shares A/B,A/B,...] [--iterations N] [--gang-model M] [--co-model M]
# (M: a profile of bench/data/models/, e.g. lstm, transformer.)
set -euo pipefail

usage() {
  sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
  echo "defaults: --build-dir build --runs 2 --shares 0.05/0.05,0.05/0.1,0.1/0.1 --iterations 12"
  echo "          --gang-model resnet18 --co-model resnet50"
  echo "          (A/B: the share of the ranks on node A, then node B)"
}

build=build
runs=2
shares=0.05/0.05,0.05/0.1,0.1/0.1
iterations=12
gang_model=resnet18
co_model=resnet50
# shellcheck disable=SC2034  # read by bench_args.sh
bench=low_share_gang_bench.sh
# shellcheck source=bench_args.sh
source "$(dirname "$0")/bench_args.sh"
while [[ $# -gt 0 ]]; do
  case $1 in
    --build-dir) build=${2:?--build-dir needs a value}; shift 2 ;;
    --runs) number --runs "${2:-}" 1 20; runs=$2; shift 2 ;;
    --shares) shares=${2:?--shares needs a value}; shift 2 ;;
    --iterations) number --iterations "${2:-}" 3 200; iterations=$2; shift 2 ;;
    --gang-model) model --gang-model "${2:-}"; gang_model=$2; shift 2 ;;
    --co-model) model --co-model "${2:-}"; co_model=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "low_share_gang_bench.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
IFS=, read -r -a share_sets <<<"$shares"
for set in "${share_sets[@]}"; do
  [[ $set == */* ]] || { echo "low_share_gang_bench.sh: --shares: '$set' is not A/B" >&2; exit 2; }
  number "--shares (node A)" "${set%/*}" 0.01 1
  number "--shares (node B)" "${set#*/}" 0.01 1
done
build=$(cd "$build" 2>/dev/null && pwd) || { echo "low_share_gang_bench.sh: no build directory" >&2; exit 2; }
fakejob=$build/bench/iashim-fakejob
for f in "$fakejob" "$build/simgpu/libcuda.so.1" "$build/libiashim/libiashim.so"; do
  [[ -x $f || -f $f ]] || { echo "low_share_gang_bench.sh: $f is missing: build first" >&2; exit 2; }
done

per_node=4
node_gpus=$(seq -s, 0 $((per_node - 1)))  # a rank's node's GPUs: 0,1,2,3
tmp=$(mktemp -d)
prefix="iashim-lowshare-$$"
export LD_LIBRARY_PATH="$build/simgpu"
export SIMGPU_DEVICES="${per_node}xTesla V100-SXM2-32GB:32GiB:80"
export SIMGPU_FABRIC="$tmp/fabric"
mkdir "$SIMGPU_FABRIC"
# shellcheck source=bench_jobs.sh
source "$(dirname "$0")/bench_jobs.sh"

# The gang: ranks 0-3 on node A, 4-7 on node B, each node's at its share.
# Sets gang_ms: rank 0's mean iteration time in ms. (Not called in a
# subshell: its processes must be this shell's, to be waited for and killed.)
run_gang() {  # run_gang SHARE_A SHARE_B TAG
  local ranks=()
  for r in $(seq 0 $((2 * per_node - 1))); do
    local node=$((r / per_node)) share=$1
    [[ $node -eq 1 ]] && share=$2
    SIMGPU_NAMESPACE="$prefix-$node" CUDA_VISIBLE_DEVICES="$node_gpus" RANK=$r \
      LOCAL_RANK=$((r % per_node)) WORLD_SIZE=$((2 * per_node)) MASTER_ADDR=127.0.0.1 \
      MASTER_PORT="$$$3" IASHIM_SHARE=$share LD_PRELOAD="$build/libiashim/libiashim.so" \
      timeout 300 "$fakejob" --model "$gang_model" --iterations "$iterations" --quiet \
      >"$tmp/rank$r.out" 2>&1 &
    ranks+=($!)
    pids+=($!)
  done
  wait "${ranks[@]}" || { echo "low_share_gang_bench.sh: a rank failed: $(cat "$tmp"/rank*.out)" >&2; exit 1; }
  gang_ms=$(jq -r 'select(.summary == true) | .iter_ms' "$tmp/rank0.out")
}

# A co-runner on every GPU of both nodes for SECONDS.
start_co_runners() {  # start_co_runners SECONDS
  co_pids=()
  for node in 0 1; do
    for g in $(seq 0 $((per_node - 1))); do
      SIMGPU_NAMESPACE="$prefix-$node" CUDA_VISIBLE_DEVICES=$g \
        timeout 300 "$fakejob" --model "$co_model" --seconds "$1" >"$tmp/co$node$g.out" 2>&1 &
      co_pids+=($!)
      pids+=($!)
    done
  done
}

run_gang 1 1 0
alone_ms=$gang_ms
stop_all
start_co_runners 6
wait "${co_pids[@]}" || { echo "low_share_gang_bench.sh: a co-runner failed: $(cat "$tmp"/co*.out)" >&2; exit 1; }
co_alone=$(cat "$tmp"/co*.out | jq -s '[.[] | select(.summary == true) | .iters_per_s] | add / length')
stop_all
echo "gang alone: $alone_ms ms per iteration ($gang_model, 8 ranks on 2 nodes); co-runners ($co_model)"
echo "alone, each on its GPU: $co_alone it/s (simulated: simgpu on this machine)"
echo
echo "| shares (node A / node B) | run | gang ms/iteration | slowdown | x least share | co-runners keep |"
echo "|---|---|---|---|---|---|"
tag=1
for set in "${share_sets[@]}"; do
  a=${set%/*}
  b=${set#*/}
  least=$(awk -v a="$a" -v b="$b" 'BEGIN { print (a < b ? a : b) }')
  for run in $(seq 1 "$runs"); do
    # The co-runners cover the gang's whole run: a guess from its share, long enough.
    cover_s=$(awk -v ms="$alone_ms" -v n="$iterations" -v s="$least" 'BEGIN { printf "%d", 1 + 4 * ms * n / s / 1000 }')
    co_start=$(date +%s.%N)
    start_co_runners "$cover_s"
    sleep 1
    began=$(date +%s.%N)
    run_gang "$a" "$b" "$tag"
    ended=$(date +%s.%N)
    # What the co-runners did while the gang ran: their per-second lines (t
    # seconds after they started, the second's mean iteration) inside that span.
    # (They still run: a last line may be half written, and is skipped.)
    kept=$(cat "$tmp"/co*.out | jq -R 'fromjson? // empty' | jq -rs --argjson t0 "$(awk -v a="$began" -v c="$co_start" 'BEGIN { print a - c }')" \
        --argjson t1 "$(awk -v a="$ended" -v c="$co_start" 'BEGIN { print a - c }')" --argjson solo "$co_alone" '
      [.[] | select(.summary != true and .t - 1 >= $t0 and .t <= $t1 and .iter_ms > 0) | 1000 / .iter_ms]
      | if length == 0 then "-" else (add / length / $solo * 1000 | round / 1000) end')
    stop_all
    awk -v s="$set" -v r="$run" -v ms="$gang_ms" -v alone="$alone_ms" -v least="$least" -v kept="$kept" 'BEGIN {
      printf "| %s | %d | %.0f | %.1fx | %.2f | %s |\n", s, r, ms, ms / alone, ms / alone * least, kept }'
    tag=$((tag + 1))
  done
done
