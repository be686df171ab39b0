# Where a live run's mean JCT parts from the simulator's, job by job
# (scripts/live-replay.sh's report, for a gap over 10%).
#
#   awk -v window=S -f gap_causes.awk LIVE_ROWS SIM_ROWS
#
# Rows as scripts/replay/metrics.sh reads them (id priority arrival start end
# solo gpus); the live rows give each job's GPUs, the simulated ones may not.
# JCT = wait + run, so the mean JCT's gap is the mean wait's plus the mean
# run's, and each is a sum over jobs:
#  - waiting: a job that waited longer live than simulated is put down to the
#    job whose end its start followed: the last to end on one of its GPUs, at
#    most `window` seconds (a scheduling pass, and Slurm's latency) before
#    it started; and if that one too waited longer (by a second or more), to
#    the one it followed, and so on: a chain of jobs each starting as the one
#    before it ended is put down to the first, whose run held them all. The
#    jobs that account for the most of the gap are named, with their own
#    runs live and simulated;
#  - running: the jobs whose runs were longest beyond the simulation's are
#    named, with how much of their run a guaranteed job shared one of their
#    GPUs (where the share controller throttles them).
# Only jobs that account for a tenth of their part or more (of the waiting
# of the jobs that waited longer) are named, three at most. Prints nothing
# when both parts are within a second of the mean.
BEGIN { FS = "\t"; if (window == "") window = 3 }
function gpu_count(list,    parts, p, m, n, total, g) {
  m = split(list, parts, "+")
  for (p = 1; p <= m; p++) { sub(/^[^:]*:/, "", parts[p]); total += split(parts[p], g, ",") }
  return total
}
# Whether the jobs' GPU lists (node:i,j+node:k) share a GPU.
function share_gpu(a, b,    pa, pb, ma, mb, i, j, ha, hb, ga, gb, xa, xb, na, nb, x, y) {
  ma = split(a, pa, "+"); mb = split(b, pb, "+")
  for (i = 1; i <= ma; i++) for (j = 1; j <= mb; j++) {
    ha = pa[i]; sub(/:.*/, "", ha); hb = pb[j]; sub(/:.*/, "", hb)
    if (ha != hb) continue
    ga = pa[i]; sub(/^[^:]*:/, "", ga); gb = pb[j]; sub(/^[^:]*:/, "", gb)
    na = split(ga, xa, ","); nb = split(gb, xb, ",")
    for (x = 1; x <= na; x++) for (y = 1; y <= nb; y++) if (xa[x] == xb[y]) return 1
  }
  return 0
}
function describe(k) {
  return sprintf("job %s (%s, %d GPU%s, %.1f s alone)", k, prio[k], gpu_count(gpus[k]),
                 (gpu_count(gpus[k]) > 1 ? "s" : ""), solo[k])
}
# The fraction of job k's live run during which a guaranteed job shared one
# of its GPUs (sampled at 200 points of the run).
# Sets beside_names ("0, 4, 12", in order) and beside_count.
function beside_guaranteed(k,    i, j, g, t, hit, covered, ids, swap) {
  beside_count = 0
  for (g in la) {
    if (g == k || prio[g] != "guaranteed" || !share_gpu(gpus[k], gpus[g])) continue
    if (le[g] <= ls[k] || ls[g] >= le[k]) continue
    ids[++beside_count] = g + 0
  }
  for (i = 2; i <= beside_count; i++)
    for (j = i; j > 1 && ids[j - 1] > ids[j]; j--) { swap = ids[j]; ids[j] = ids[j - 1]; ids[j - 1] = swap }
  beside_names = ""
  for (i = 1; i <= beside_count; i++) beside_names = beside_names (i > 1 ? ", " : "") ids[i]
  covered = 0
  for (i = 0; i < 200; i++) {
    t = ls[k] + (i + 0.5) * (le[k] - ls[k]) / 200; hit = 0
    for (g in la) if (g != k && prio[g] == "guaranteed" && ls[g] <= t && t < le[g] && share_gpu(gpus[k], gpus[g])) { hit = 1; break }
    covered += hit
  }
  return covered / 200
}
# The job whose end job j's live start followed: the last to end on one of
# its GPUs, at most `window` seconds before; "" when none did.
function followed_job(j,    k, best) {
  best = ""
  for (k in la) {
    if (k == j || le[k] > ls[j] + 0.001 || le[k] < ls[j] - window || !share_gpu(gpus[j], gpus[k])) continue
    if (best == "" || le[k] > le[best]) best = k
  }
  return best
}
FNR == NR { la[$1] = $3; ls[$1] = $4; le[$1] = $5; solo[$1] = $6; prio[$1] = $2; gpus[$1] = $7; next }
($1 in la) { ss[$1] = $4; se[$1] = $5 }
END {
  for (j in la) if (j in ss) {
    n++
    wait_gap[j] = (ls[j] - la[j]) - (ss[j] - la[j]); run_gap[j] = (le[j] - ls[j]) - (se[j] - ss[j])
    total_wait += wait_gap[j]; total_run += run_gap[j]
    if (wait_gap[j] > 0) longer += wait_gap[j]; else shorter += wait_gap[j]
  }
  if (n == 0) exit
  if (total_wait / n > -1 && total_wait / n < 1 && total_run / n > -1 && total_run / n < 1) exit
  # Waiting: each job that waited longer, put down to the first of the
  # chain of jobs it followed.
  for (j in wait_gap) followed[j] = followed_job(j)
  for (j in wait_gap) {
    if (wait_gap[j] <= 0) continue
    root = followed[j]
    for (depth = 0; root != "" && wait_gap[root] >= 1 && followed[root] != "" && depth < 1000; depth++)
      root = followed[root]
    if (root == "") { unattributed += wait_gap[j]; unattributed_jobs++ } else { held[root] += wait_gap[j]; followers[root]++ }
  }
  printf "  waiting %+.1f s a job (the jobs that waited longer than simulated %+.1f s, the others %+.1f s)\n",
         total_wait / n, longer / n, shorter / n
  named = 0
  for (r = 0; r < 3 && longer > 0; r++) {
    best = ""
    for (k in held) if (!(k in said_wait) && (best == "" || held[k] > held[best])) best = k
    if (best == "" || held[best] < 0.1 * longer) break
    said_wait[best] = 1; named++
    printf "    %+.1f s: %d job%s that started after %s ended, or after a job that did; it ran %.1f s live, %s\n",
           held[best] / n, followers[best], (followers[best] > 1 ? "s" : ""), describe(best),
           le[best] - ls[best], (best in ss ? sprintf("%.1f s simulated", se[best] - ss[best]) : "not simulated")
  }
  if (unattributed_jobs > 0 && unattributed >= 0.1 * longer)
    printf "    %+.1f s: %d job%s that followed no job's end on %s GPUs (the queue's order, Slurm's and the coordinator's latency)\n",
           unattributed / n, unattributed_jobs, (unattributed_jobs > 1 ? "s" : ""), (unattributed_jobs > 1 ? "their" : "its")
  printf "  running %+.1f s a job\n", total_run / n
  for (r = 0; r < 3 && total_run > 0; r++) {
    best = ""
    for (k in run_gap) if (!(k in said_run) && (best == "" || run_gap[k] > run_gap[best])) best = k
    if (best == "" || run_gap[best] < 0.1 * total_run) break
    said_run[best] = 1
    f = beside_guaranteed(best)
    printf "    %+.1f s: %s ran %.1f s live, %.1f s simulated%s\n", run_gap[best] / n, describe(best),
           le[best] - ls[best], se[best] - ss[best],
           (prio[best] != "guaranteed" && f > 0 ? sprintf("; guaranteed job%s %s on its GPUs for %.0f%% of it", (beside_count > 1 ? "s" : ""), beside_names, 100 * f) : "")
  }
}
