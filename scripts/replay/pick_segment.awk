# The segment the live replay takes when none is named (--start auto): the
# first run of `jobs` jobs of at most max_gpus GPUs of the trace (those
# segment.awk takes: multi-GPU ones only where Gavel measured them, those
# wider than a node's node_gpus only in whole nodes; at job 0,
# jobs, 2*jobs, ...) whose offered load is within a quarter of the cluster's
# GPUs. Offered load = the segment's work alone (GPU-seconds: a job's length
# times its GPUs) / the time from its first arrival to its last job's end if
# none waited or shared: the GPUs it would keep busy. Loaded to about its
# capacity, a cluster is where placement decides whether jobs share or
# queue; far below it every job finds an empty GPU, far above it every
# policy must share everything.
#
#   awk -v jobs=K -v gpus=G -v max_gpus=M -v node_gpus=P -f pick_segment.awk gavel-solo.tsv TRACE
#
# gavel-solo.tsv as segment.awk reads it. Prints "start<TAB>load"; exits 1,
# naming the closest segment, when none qualifies.
BEGIN { FS = "\t"; if (max_gpus == "") max_gpus = 4; if (node_gpus == "") node_gpus = 4 }
FILENAME == ARGV[1] { rate[$1, $2] = $3; next }
$7 <= max_gpus && ($7 <= node_gpus || $7 % node_gpus == 0) && ($7 == 1 || (($1, $7) in rate)) {
  i = n++ % jobs
  if (i == 0) { first = $6; work = 0; last = 0; bad = 0 }
  if (!(($1, $7) in rate)) bad = 1
  else { d = $5 / rate[$1, $7]; work += d * $7; if ($6 - first + d > last) last = $6 - first + d }
  if (i == jobs - 1 && !bad && last > 0) {
    load = work / last
    if (load >= 0.75 * gpus && load <= 1.25 * gpus) { printf "%d\t%.2f\n", n - jobs, load; found = 1; exit }
    if (best == "" || (load - gpus) ^ 2 < (best_load - gpus) ^ 2) { best = n - jobs; best_load = load }
  }
}
END {
  if (found) exit 0
  if (best == "") printf "the trace has fewer than %d jobs of at most %d GPUs of known types in a row\n", jobs, max_gpus > "/dev/stderr"
  else printf "no segment of %d jobs loads %d GPUs to within a quarter; the closest starts at %d (load %.1f): pass --start\n", jobs, gpus, best, best_load > "/dev/stderr"
  exit 1
}
