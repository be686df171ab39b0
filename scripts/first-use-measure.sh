#!/usr/bin/env bash
# The README's "Running jobs under the coordinator" block, measured on simgpu
# (figures are simulated): resnet50 alone for 20 s under the coordinator, then
# the block's two 40 s jobs started together, with the solo probe and with
# --no-probe. Prints the guaranteed job's slowdown against its solo rate after
# 30 s and over the run. Each run has a fresh state dir (no saved baseline) and
# its own simulated GPU; uses the default endpoints (tcp://127.0.0.1:5555/5556),
# as the block does. About 2 minutes after scripts/setup.sh.
#
#   scripts/first-use-measure.sh          (from anywhere; status snapshots kept in $out)
set -u
cd "$(dirname "$0")/.."
export SIMGPU_NAMESPACE=first-use-$$
out=$(mktemp -d /tmp/iashim-first-use.XXXXXX)
rates() { # FILE FROM TO: mean iters_per_s of per-second lines with FROM < t <= TO
  python3 - "$@" <<'PY'
import json, sys
f, lo, hi = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
v = [json.loads(l)["iters_per_s"] for l in open(f) if '"t"' in l and lo < json.loads(l)["t"] <= hi]
print("%.3f" % (sum(v) / len(v)) if v else "nan")
PY
}
one() { # NAME COORDINATOR_EXTRA...
  name=$1; shift
  export XDG_STATE_HOME=$out/xdg-$name; rm -rf "$XDG_STATE_HOME"
  LD_LIBRARY_PATH=build/simgpu build/coordinator/daemon/iashim-coordinator "$@" >$out/$name-coord.log 2>&1 &
  cp=$!; sleep 1
}
# Solo: the guaranteed job alone, under the same coordinator and shim.
one solo
build/coordinator/cli/iashim run --simgpu --priority guaranteed --mem 10GiB -- \
  build/bench/iashim-fakejob --model resnet50 --seconds 20 >$out/solo.log 2>$out/solo.err
kill $cp; wait $cp 2>/dev/null
for mode in probe noprobe; do
  if [[ $mode == probe ]]; then one $mode; else one $mode --no-probe; fi
  # The README block, as written.
  build/coordinator/cli/iashim run --simgpu --priority guaranteed --mem 10GiB -- \
    build/bench/iashim-fakejob --model resnet50 --seconds 40 >$out/$mode-guaranteed.log 2>$out/$mode-g.err &
  g=$!
  build/coordinator/cli/iashim run --simgpu --priority opportunistic --mem 10GiB -- \
    build/bench/iashim-fakejob --model resnet50 --seconds 40 >$out/$mode-opportunistic.log 2>$out/$mode-o.err &
  o=$!
  for t in 3 6 15 30; do
    sleep $(( t - ${prev:-0} )); prev=$t
    echo "--- t=${t}s" >>$out/$mode-status.txt
    build/coordinator/cli/iashim status >>$out/$mode-status.txt 2>&1
  done
  prev=0
  wait $g $o
  kill $cp; wait $cp 2>/dev/null
done
solo=$(rates $out/solo.log 3 20)
echo "solo (t 3-20 s): $solo it/s"
for mode in probe noprobe; do
  after=$(rates $out/$mode-guaranteed.log 30 40)
  run=$(grep summary $out/$mode-guaranteed.log | python3 -c 'import json,sys; print("%.3f" % json.load(sys.stdin)["iters_per_s"])')
  orun=$(grep summary $out/$mode-opportunistic.log | python3 -c 'import json,sys; print("%.3f" % json.load(sys.stdin)["iters_per_s"])')
  python3 -c "s=$solo; a=$after; r=$run; print('$mode: guaranteed after 30 s %.2f it/s (slowdown %.1f%%), over the run %.2f it/s (slowdown %.1f%%); opportunistic over the run $orun it/s' % (a, (s/a-1)*100, r, (s/r-1)*100))"
done
rm -f /dev/shm/$SIMGPU_NAMESPACE-gpu*
echo "logs and iashim status snapshots (t = 3, 6, 15, 30 s): $out"
