# A segment of a Gavel-format trace as jobs for the live replay
# (scripts/live-replay.sh) and as a trace for iashim-clustersim.
#
#   awk -v start=N -v jobs=K -v scale=X -v every=M -v trace_out=FILE \
#       -f segment.awk gavel-solo.tsv profiles.tsv TRACE > jobs.tsv
#
# gavel-solo.tsv: "<Gavel job type>\t<v100 steps/s alone>" for scale factor 1.
# profiles.tsv:   "<profile>\t<its Gavel job type>\t<simgpu steps/s alone>".
# TRACE:          job_type command num_steps_arg needs_data_dir total_steps
#                 arrival_time_s scale_factor (bench/data/gavel/README.md).
#
# The segment: the trace's one-GPU jobs number start.. start+jobs-1 (0-based,
# in file order); the multi-GPU jobs that arrive among them are left out and
# counted on stderr. Each job keeps its arrival (from the segment's first) and
# its length alone on a V100 (total_steps / Gavel's solo steps/s), both
# divided by the time scale X; it runs the fake job profile of its model
# family (FAMILY below) for as many iterations as last that long alone on
# simgpu. Job i (0-based) is guaranteed when i % every == 0 (every 0: none).
#
# Prints jobs.tsv: id profile priority iterations arrival_s solo_s trace_type
# trace_solo_s; writes the same jobs to trace_out in Gavel's format, with the
# profile's own Gavel job type, so iashim-clustersim with simgpu's throughputs
# (iashim-simgpu-throughputs) replays exactly what runs live.
BEGIN {
  FS = OFS = "\t"
  # Gavel's model families -> the profile that runs them. CycleGAN and A3C
  # have no profile of their own: CycleGAN's generators are stacks of
  # convolutions, as ResNet-50 is; A3C's policy network is a small recurrent
  # model stepped between environment steps on the host, as the LSTM
  # language model's small kernels are. Each family keeps its own lengths.
  FAMILY["ResNet-50"] = "resnet50"; FAMILY["ResNet-18"] = "resnet18"
  FAMILY["Transformer"] = "transformer"; FAMILY["LM"] = "lstm"
  FAMILY["Recommendation"] = "recoder"; FAMILY["CycleGAN"] = "resnet50"; FAMILY["A3C"] = "lstm"
}
FILENAME == ARGV[1] { gavel_solo[$1] = $2; next }
FILENAME == ARGV[2] { gavel_type[$1] = $2; simgpu_solo[$1] = $3; next }
{
  if (NF != 7) { printf "%s:%d: %d fields, not 7\n", FILENAME, FNR, NF > "/dev/stderr"; bad = 1; exit 1 }
  if ($7 != 1) { if (taken > 0 && taken < jobs) gangs++; next }
  n = one_gpu++
  if (n < start || taken >= jobs) next
  family = $1; sub(/ \(batch size [0-9]+\)$/, "", family)
  profile = FAMILY[family]
  if (profile == "" || !(profile in simgpu_solo)) {
    printf "%s:%d: no profile for job type '%s'\n", FILENAME, FNR, $1 > "/dev/stderr"; bad = 1; exit 1
  }
  if (!($1 in gavel_solo) || gavel_solo[$1] <= 0) {
    printf "%s:%d: Gavel has no v100 solo throughput for '%s'\n", FILENAME, FNR, $1 > "/dev/stderr"; bad = 1; exit 1
  }
  if (taken == 0) first_arrival = $6
  trace_solo_s = $5 / gavel_solo[$1]
  iterations = int(trace_solo_s / scale * simgpu_solo[profile] + 0.5)
  if (iterations < 1) iterations = 1
  solo_s = iterations / simgpu_solo[profile]
  arrival_s = ($6 - first_arrival) / scale
  priority = (every > 0 && taken % every == 0) ? "guaranteed" : "opportunistic"
  printf "%d\t%s\t%s\t%d\t%.3f\t%.3f\t%s\t%.0f\n", taken, profile, priority, iterations, arrival_s,
         solo_s, $1, trace_solo_s
  type = gavel_type[profile]
  printf "%s\tiashim-fakejob --model %s\t--iterations\t0\t%d\t%.3f\t1\n", type, profile, iterations,
         arrival_s > trace_out
  taken++
}
END {
  if (bad) exit 1
  if (taken < jobs) {
    printf "the trace has %d one-GPU jobs from number %d, not %d\n", taken, start, jobs > "/dev/stderr"
    exit 1
  }
  printf "%d multi-GPU jobs arriving among the segment's left out\n", gangs + 0 > "/dev/stderr"
}
