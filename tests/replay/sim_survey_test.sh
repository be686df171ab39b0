#!/usr/bin/env bash
# scripts/replay/sim-survey.sh on three segments: two that run (6c71a0 from
# job 320 once crashed iashim-clustersim: a wider-than-a-node job's queued
# reason read a destroyed view), one the trace is too short for (2869ce has
# fewer than 40 jobs from 320); each row's ratio is its two JCTs'; each
# row sets iashim beside plain with guaranteed jobs on whole GPUs too, and
# beside itself moving jobs to GPUs that empty (a what-if); with
# --guaranteed-every 0 no job is guaranteed; and bad arguments are refused.
# usage: sim_survey_test.sh REPO BUILD_DIR
set -euo pipefail
repo=$1
build=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAILED: $*" >&2; exit 1; }
survey=$repo/scripts/replay/sim-survey.sh

"$survey" --traces "6c71a0 2869ce" --starts 280:40:320 --out "$out/run" --build-dir "$build" \
  >"$out/stdout" 2>"$out/stderr" || fail "exit $?: $(cat "$out/stderr")"
rows=$out/run/rows.tsv
[[ $(tail -n +2 "$rows" | cut -f1,2 | tr '\t' ' ' | tr '\n' ',') == "6c71a0 280,6c71a0 320,2869ce 280," ]] ||
  fail "rows: $(cut -f1,2 "$rows" | tr '\n' ' ')"
awk -F'\t' 'NR > 1 && ($6 - $5 / $4 > 0.0015 || $5 / $4 - $6 > 0.0015) { bad = bad " " $1 "-" $2 }
  NR > 1 && !($3 > 0 && $7 > 0) { bad = bad " " $1 "-" $2 "(load or V100 ratio)" }
  NR > 1 && !($10 > 0) { bad = bad " " $1 "-" $2 "(ratio to whole GPUs)" }
  NR > 1 && !($11 > 0) { bad = bad " " $1 "-" $2 "(ratio moving jobs)" }
  END { if (bad != "") { print bad; exit 1 } }' "$rows" || fail "ratios off in$(cat "$rows")"
grep -q "^3 segments (1 left out: the trace too short from there)$" "$out/stdout" ||
  fail "summary: $(tail -5 "$out/stdout")"
grep -q "^--iashim / plain mean JCT, simgpu pairs: *median [0-9.]*, 90th pct" "$out/stdout" ||
  fail "summary: $(tail -5 "$out/stdout")"
grep -q "^--iashim / plain, guaranteed on whole GPUs: *median [0-9.]*, .*; ahead on [0-9]*, behind on [0-9]*$" \
  "$out/stdout" || fail "summary: $(tail -6 "$out/stdout")"
grep -q "^--iashim moving jobs to empty GPUs / plain: *median [0-9.]*, .*; ahead on [0-9]*, behind on [0-9]*$" \
  "$out/stdout" || fail "summary: $(tail -6 "$out/stdout")"
grep -q "^plain shards, the same: *median [0-9.]*, .*; over 1.10 on [0-9]* of 3 segments with one$" "$out/stdout" ||
  fail "summary: $(tail -5 "$out/stdout")"

# No job guaranteed: no guaranteed figures, in the rows or the summary.
"$survey" --traces 6c71a0 --starts 320:40:320 --guaranteed-every 0 --out "$out/none" \
  --build-dir "$build" >"$out/none.stdout" 2>"$out/stderr" || fail "exit $?: $(cat "$out/stderr")"
[[ $(tail -n +2 "$out/none/rows.tsv" | cut -f1,2,8,9,10 | tr '\t' ' ') == "6c71a0 320 - - -" ]] ||
  fail "--guaranteed-every 0 rows: $(cat "$out/none/rows.tsv")"
if grep -q "guaranteed" "$out/none.stdout"; then fail "--guaranteed-every 0: $(cat "$out/none.stdout")"; fi

# Bad arguments: exit 2, saying what was wrong.
refused() {  # PATTERN ARGS...
  local pattern=$1
  shift
  if "$survey" --build-dir "$build" "$@" >/dev/null 2>"$out/err"; then fail "accepted $*"; fi
  grep -q -- "$pattern" "$out/err" || fail "$*: $(cat "$out/err")"
}
refused "want FIRST:STEP:LAST" --starts 0:0:40
refused "FIRST is past LAST" --starts 80:40:0
refused "no trace 'nope'" --traces nope
refused "want a whole number" --jobs 0
refused "guaranteed-every '-1': want a whole number 0..1000" --guaranteed-every -1
refused "guaranteed-every '1001'" --guaranteed-every 1001
refused "unknown argument" --frobnicate 1
echo "sim_survey_test: ok"
