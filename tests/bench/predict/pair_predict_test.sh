#!/usr/bin/env bash
# iashim-pair-predict end to end on simgpu: two fake jobs traced alone by the
# shim, then run together; the tool's prediction from the two traces must
# match what the pair measured (simgpu is both the GPU and the model here, so
# this checks the trace-to-job rebuilding, not the model), and its solo rate
# must match the trace's own.
set -euo pipefail
build=${1:?usage: pair_predict_test.sh BUILD_DIR}
dir=$(mktemp -d /tmp/iashim-pair-predict.XXXXXX)
export SIMGPU_NAMESPACE="pair-predict-$$"
export LD_LIBRARY_PATH="$build/simgpu"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$dir"
  rm -f /dev/shm/"$SIMGPU_NAMESPACE"-gpu*
}
trap cleanup EXIT INT TERM

fakejob=$build/bench/iashim-fakejob
rate() { sed -n 's/.*"summary": true.*"iters_per_s": \([0-9.]*\).*/\1/p' "$1"; }
for m in resnet18 lstm; do
  LD_PRELOAD=$build/libiashim/libiashim.so IASHIM_TRACE="$dir/$m-%p.bin" \
    timeout 60 "$fakejob" --model "$m" --seconds 3 >"$dir/$m-solo.out"
done
for m in resnet18 lstm; do
  timeout 60 "$fakejob" --model "$m" --seconds 5 >"$dir/$m-pair.out" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
pids=()
"$build/bench/predict/iashim-pair-predict" --sms 80 "$dir"/resnet18-*.bin "$dir"/lstm-*.bin \
  >"$dir/predict.json"
cat "$dir/predict.json"
field() {  # JOB_INDEX KEY
  tr -d ' ' <"$dir/predict.json" | sed 's/},{/}\n{/g' | sed -n "$(($1 + 1))p" |
    sed -n "s/.*\"$2\":\([0-9.]*\).*/\1/p"
}
fail=0
i=0
for m in resnet18 lstm; do
  solo=$(rate "$dir/$m-solo.out"); pair=$(rate "$dir/$m-pair.out")
  kept=$(awk -v p="$pair" -v s="$solo" 'BEGIN { printf "%.3f", p / s }')
  predicted=$(field $i predicted_kept)
  sim_solo=$(field $i sim_solo_it_per_s)
  echo "$m: solo $solo it/s (simulated from its trace $sim_solo), paired $pair: kept $kept, predicted $predicted"
  awk -v a="$kept" -v b="$predicted" 'BEGIN { d = a - b; exit !(d < 0.08 && d > -0.08) }' ||
    { echo "FAIL: $m kept $kept, predicted $predicted (want within 0.08)"; fail=1; }
  awk -v a="$sim_solo" -v b="$solo" 'BEGIN { exit !(a > 0.95 * b && a < 1.05 * b) }' ||
    { echo "FAIL: $m simulated solo $sim_solo it/s, measured $solo (want within 5%)"; fail=1; }
  i=$((i + 1))
done
exit $fail
