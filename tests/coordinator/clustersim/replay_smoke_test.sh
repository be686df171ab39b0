#!/usr/bin/env bash
# Replays two small seed-0 Gavel traces with the real binary, all five
# policies, and checks the JSON lines and the --out files.
# usage: replay_smoke_test.sh IASHIM_CLUSTERSIM GAVEL_DATA_DIR
set -euo pipefail
bin="$1"
data="$2"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

"$bin" --trace "$data/msr-seed0/23dbec.trace" "$data/msr-seed0/51b7ef.trace" \
  --throughputs "$data/simulation_throughputs.json" --gpu-type v100 --gpus 8 \
  --arrival-scale 100 --policy exclusive,firstfit,iadeep,iashim,oracle --seed 1 --json \
  --out "$out/run" > "$out/lines.json"

python3 - "$out" <<'PY'
import csv, json, sys
out = sys.argv[1]
lines = [json.loads(l) for l in open(f"{out}/lines.json") if l.strip()]
assert [l["policy"] for l in lines] == ["exclusive", "firstfit", "iadeep", "iashim", "oracle"], lines
need = ["policy", "jobs", "mean_jct_s", "p50_jct_s", "p99_jct_s", "makespan_s", "gpu_util",
        "mean_slowdown", "p99_slowdown", "later_than_exclusive", "skipped", "gpus",
        "arrival_scale", "seed", "predictor_mae"]
for l in lines:
    missing = [k for k in need if k not in l]
    assert not missing, (l["policy"], missing)
    assert l["jobs"] == 25 and l["skipped"] == 2 and l["gpus"] == 8, l
    assert l["mean_slowdown"] >= 1 - 1e-9 and 0 < l["gpu_util"] <= 1, l
assert lines[0]["later_than_exclusive"] == 0, lines[0]
for l in lines:
    if l["policy"] in ("iadeep", "iashim") and l["pair_starts"] > 0:
        assert l["predictor_mae"] is not None, l
summary = list(csv.DictReader(open(f"{out}/run/summary.csv")))
assert [r["policy"] for r in summary] == [l["policy"] for l in lines]
assert len(json.load(open(f"{out}/run/summary.json"))) == 5
for p in ("exclusive", "iashim", "oracle"):
    rows = list(csv.DictReader(open(f"{out}/run/jobs-{p}.csv")))
    assert list(rows[0].keys()) == ["job", "type", "scale", "arrival_s", "start_s", "finish_s",
                                    "jct_s", "solo_s", "slowdown"], rows[0].keys()
    assert len(rows) == 25
print("ok")
PY

# A bad argument is exit 2 with the argument named.
set +e
"$bin" --trace "$data/msr-seed0/23dbec.trace" --throughputs "$data/simulation_throughputs.json" \
  --gpu-type v100 --gpus 0 2> "$out/err"
rc=$?
set -e
[[ $rc -eq 2 ]] || { echo "expected exit 2, got $rc"; exit 1; }
grep -q -- "--gpus" "$out/err"
