#!/usr/bin/env bash
# The main job: several training jobs sharing one simulated GPU.
# Installs and builds if needed (scripts/setup.sh), measures each job alone,
# then runs them together on one simulated V100 and prints what sharing cost.
#
#   scripts/demo.sh [--seconds S] [--models "resnet50 transformer lstm"]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=4
models="resnet50 transformer lstm"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seconds)
      seconds="${2:-}"; shift 2
      [[ "$seconds" =~ ^[0-9]+$ && "$seconds" -ge 2 && "$seconds" -le 600 ]] ||
        { echo "demo.sh: --seconds must be an integer 2..600 (got '$seconds')" >&2; exit 2; } ;;
    --models) models="${2:-}"; shift 2 ;;
    -h|--help) sed -n '2,6p' "$0"; exit 0 ;;
    *) echo "demo.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

scripts/setup.sh
export LD_LIBRARY_PATH="$PWD/build/simgpu"
export SIMGPU_NAMESPACE="iashim-demo-$$"
export SIMGPU_DEVICES="Tesla V100-SXM2-32GB:32GiB:80"
tmp=$(mktemp -d)
cleanup() { rm -rf "$tmp"; rm -f /dev/shm/"$SIMGPU_NAMESPACE"-gpu*; }
trap cleanup EXIT

rate() { sed -n 's/.*"summary": true.*"iters_per_s": \([0-9.]*\).*/\1/p' "$1"; }

echo
echo "== Each job alone on a simulated V100 (${seconds}s each) =="
for m in $models; do
  build/bench/iashim-fakejob --model "$m" --seconds "$seconds" --quiet > "$tmp/solo-$m"
  printf '  %-12s %8.2f iterations/s\n' "$m" "$(rate "$tmp/solo-$m")"
done

echo
echo "== All together on the same simulated GPU ($((seconds + 2))s) =="
pids=()
for m in $models; do
  build/bench/iashim-fakejob --model "$m" --seconds "$((seconds + 2))" > "$tmp/shared-$m" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done

echo
printf '%-12s %10s %10s %8s\n' "job" "alone it/s" "shared it/s" "kept"
total=0
for m in $models; do
  solo=$(rate "$tmp/solo-$m"); shared=$(rate "$tmp/shared-$m")
  kept=$(awk -v a="$shared" -v b="$solo" 'BEGIN { printf "%.2f", a / b }')
  total=$(awk -v t="$total" -v k="$kept" 'BEGIN { printf "%.2f", t + k }')
  printf '%-12s %10.2f %10.2f %8s\n' "$m" "$solo" "$shared" "$kept"
done
echo "Together the jobs made ${total} solo-GPUs' worth of progress on one GPU."
echo "(simgpu is a simulation calibrated to Gavel's V100 measurements; see simgpu/README.md.)"
