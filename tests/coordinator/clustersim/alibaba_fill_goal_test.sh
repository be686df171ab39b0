#!/usr/bin/env bash
# The Alibaba fill goal, on the whole bundled pod list: iashim's placement
# allocates at least best-fit's share of the GPU capacity and leaves no more
# pods unplaced. (The latency goal is printed, not asserted: timing is for
# benchmarks, bench/clustersim/placement_bench.cc.)
#   alibaba_fill_goal_test.sh SIM DATA_DIR
set -euo pipefail
sim="$1" data="$2"
run() {
  "$sim" --alibaba-nodes "$data/openb_node_list_gpu_node.csv" \
    --alibaba-pods "$data/openb_pod_list_default.csv" --alibaba-mode fill --json "$@"
}
get() { sed -E "s/.*\"$1\":([^,}]*).*/\1/" <<<"$2"; }
iashim=$(run --alibaba-policy iashim)
bestfit=$(run --alibaba-policy bestfit)
echo "iashim:  placed $(get placed "$iashim"), never placed $(get never_placed "$iashim"), peak alloc $(get peak_alloc_rate "$iashim"), CPU p99 $(get cpu_p99_us "$iashim") us"
echo "bestfit: placed $(get placed "$bestfit"), never placed $(get never_placed "$bestfit"), peak alloc $(get peak_alloc_rate "$bestfit")"
fail=0
awk -v a="$(get peak_allocated_milli "$iashim")" -v b="$(get peak_allocated_milli "$bestfit")" \
  'BEGIN { exit !(a >= b) }' || { echo "FAIL: iashim allocates less than best fit"; fail=1; }
awk -v a="$(get never_placed "$iashim")" -v b="$(get never_placed "$bestfit")" \
  'BEGIN { exit !(a <= b) }' || { echo "FAIL: iashim leaves more pods unplaced than best fit"; fail=1; }
exit "$fail"
