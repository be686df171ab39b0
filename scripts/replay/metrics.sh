# shellcheck shell=bash
# The live replay's figures for one run (scripts/live-replay.sh), from its
# jobs' rows, the same way for a live run and for iashim-clustersim's:
#
#   rows: id priority arrival_s start_s end_s solo_s gpus [iter_s]   (TSV,
#         seconds from the run's start; gpus "node:index[,index...]" (a
#         gang's several; a gang on several nodes "node:...+node:..."), or
#         "-" when not known; iter_s, a live row's: the seconds its
#         iterations took by the job's own clock, its slowest task's, or "-")
#
# JCT = end - arrival; slowdown = JCT / solo (alone, on an idle cluster); run
# slowdown = (end - start) / solo: the part that sharing causes, which is what
# a guaranteed job's 10% target bounds (the wait before start is the queue's).
# The long guaranteed jobs are those of 4 s or more alone: a shorter one's run
# here is mostly its processes' start-up (0.2-1 s for a one-GPU job, more for
# a gang's ranks), which no share can help. Their iteration slowdown =
# iter_s / solo leaves the start-up out of the longer ones too (a row without
# iter_s, a simulated one, has none: its run).
# Percentiles interpolate linearly between ranks, as iashim-clustersim's do.
# GPU utilisation = GPU-seconds with at least one job / (GPUs x makespan),
# makespan = the last end (arrivals start at 0).

# The p-th percentile (0..1) of the numbers on stdin.
percentile() {
  sort -g | awk -v p="$1" '{ x[n++] = $1 }
    END { if (n == 0) { print "nan"; exit } pos = p * (n - 1); i = int(pos)
          v = (i + 1 < n) ? x[i] + (pos - i) * (x[i + 1] - x[i]) : x[i]; printf "%.3f\n", v }'
}

# Prints "key value" lines for ROWS_FILE on a cluster of GPUS GPUs.
replay_metrics() {  # ROWS_FILE GPUS
  local rows=$1 gpus=$2
  awk -F'\t' -v gpus="$gpus" '
    { jct = $5 - $3; sd = jct / $6; run = ($5 - $4) / $6
      n++; sum_jct += jct; sum_sd += sd; sum_wait += $4 - $3; sum_run += $5 - $4
      if ($5 > makespan) makespan = $5
      if ($2 == "guaranteed") { g++; g_sd += sd; g_run += run; if (run > g_run_max) g_run_max = run
                                if (sd > g_sd_max) g_sd_max = sd
                                if ($6 >= 4) { lg++; lg_run += run; if (run > lg_run_max) lg_run_max = run
                                               it = ($8 != "" && $8 != "-") ? $8 / $6 : run
                                               lg_it += it; if (it > lg_it_max) lg_it_max = it } } }
    END { printf "jobs %d\nmean_jct_s %.2f\nmean_slowdown %.3f\nmean_wait_s %.2f\nmean_run_s %.2f\n",
                 n, sum_jct / n, sum_sd / n, sum_wait / n, sum_run / n
          printf "makespan_s %.1f\nguaranteed %d\n", makespan, g
          if (g > 0) printf "guaranteed_mean_slowdown %.3f\nguaranteed_max_slowdown %.3f\nguaranteed_mean_run_slowdown %.3f\nguaranteed_max_run_slowdown %.3f\n",
                            g_sd / g, g_sd_max, g_run / g, g_run_max
          if (lg > 0) printf "long_guaranteed_mean_run_slowdown %.3f\nlong_guaranteed_max_run_slowdown %.3f\nlong_guaranteed_mean_iter_slowdown %.3f\nlong_guaranteed_max_iter_slowdown %.3f\n",
                             lg_run / lg, lg_run_max, lg_it / lg, lg_it_max }' "$rows"
  echo "p99_jct_s $(awk -F'\t' '{ print $5 - $3 }' "$rows" | percentile 0.99)"
  echo "p99_slowdown $(awk -F'\t' '{ print ($5 - $3) / $6 }' "$rows" | percentile 0.99)"
  # Busy GPU-seconds: per GPU, the union of its jobs' [start, end]; a gang
  # keeps each of its GPUs busy.
  if ! awk -F'\t' '$7 == "-" { found = 1 } END { exit !found }' "$rows"; then
    awk -F'\t' -v OFS='\t' '{ m = split($7, part, "+")
                              for (p = 1; p <= m; p++) {
                                host = part[p]; sub(/:.*/, "", host); list = part[p]; sub(/^[^:]*:/, "", list)
                                n = split(list, g, ","); for (i = 1; i <= n; i++) { $7 = host ":" g[i]; print } } }' "$rows" |
      sort -t$'\t' -k7,7 -k4,4g | awk -F'\t' -v gpus="$gpus" '
      $5 > makespan { makespan = $5 }
      $7 != gpu { if (gpu != "") busy += e - s; gpu = $7; s = $4; e = $5; next }
      $4 > e { busy += e - s; s = $4; e = $5; next }
      $5 > e { e = $5 }
      END { busy += e - s; printf "gpu_util %.3f\n", busy / (gpus * makespan) }'
  fi
}
