# A segment of a Gavel-format trace as jobs for the live replay
# (scripts/live-replay.sh) and as a trace for iashim-clustersim.
#
#   awk -v start=N -v jobs=K -v scale=X -v every=M -v max_gpus=G -v node_gpus=P -v trace_out=FILE \
#       -f segment.awk gavel-solo.tsv profiles.tsv TRACE > jobs.tsv
#
# gavel-solo.tsv: "<Gavel job type>\t<GPUs>\t<v100 steps/s alone on them>".
# profiles.tsv:   "<profile>\t<its Gavel job type>\t<GPUs>\t<simgpu steps/s>"
#                 (iashim-simgpu-throughputs: k ranks, k steps an iteration).
# TRACE:          job_type command num_steps_arg needs_data_dir total_steps
#                 arrival_time_s scale_factor (bench/data/gavel/README.md).
#
# The segment: the trace's jobs of at most G GPUs (the cluster's) number
# start..start+jobs-1 (0-based, in file order), a job of more than P GPUs (a
# node's, default 4) only in whole nodes (a multiple of P: Slurm's -N k/P
# --gres=gpu:P); the others that arrive among them are left out and counted
# on stderr, and so are multi-GPU jobs Gavel has no throughput for at their
# scale (A3C and CycleGAN: iashim-clustersim skips them too). Each
# job keeps its arrival (from the segment's first) and its length on its
# GPUs on V100s (total_steps / Gavel's steps/s at its scale), both divided by
# the time scale X; it runs the fake job profile of its model family (FAMILY
# below), on as many GPUs as the trace gives it (iashim-fakejob ranks), for
# as many iterations as last that long alone on simgpu, so sharing or
# waiting lengthens it. Job i (0-based) is guaranteed when i % every == 0
# (every 0: none).
#
# Prints jobs.tsv: id profile priority iterations arrival_s solo_s trace_type
# trace_solo_s gpus (iterations: each rank's); writes the same jobs to
# trace_out in Gavel's format, with the profile's own Gavel job type and
# steps counted as Gavel counts them (every rank's), so iashim-clustersim with
# simgpu's throughputs replays exactly what runs live.
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
  if (max_gpus == "") max_gpus = 4
  if (node_gpus == "") node_gpus = 4
}
FILENAME == ARGV[1] { gavel_rate[$1, $2] = $3; next }
FILENAME == ARGV[2] { gavel_type[$1] = $2; simgpu_rate[$1, $3] = $4; next }
{
  if (NF != 7) { printf "%s:%d: %d fields, not 7\n", FILENAME, FNR, NF > "/dev/stderr"; bad = 1; exit 1 }
  k = $7 + 0
  if (k > max_gpus) { if (taken > 0 && taken < jobs) too_big++; next }
  if (k > node_gpus && k % node_gpus != 0) { if (taken > 0 && taken < jobs) part_nodes++; next }
  if (k > 1 && !(($1, k) in gavel_rate)) { if (taken > 0 && taken < jobs) unmeasured++; next }
  n = fitting++
  if (n < start || taken >= jobs) next
  family = $1; sub(/ \(batch size [0-9]+\)$/, "", family)
  profile = FAMILY[family]
  if (profile == "" || !((profile, 1) in simgpu_rate)) {
    printf "%s:%d: no profile for job type '%s'\n", FILENAME, FNR, $1 > "/dev/stderr"; bad = 1; exit 1
  }
  if (!((profile, k) in simgpu_rate) || simgpu_rate[profile, k] <= 0) {
    printf "%s:%d: simgpu has no steps/s for profile %s on %d GPUs (its gradient size: bench/data/models/README.md)\n",
           FILENAME, FNR, profile, k > "/dev/stderr"; bad = 1; exit 1
  }
  if (!(($1, k) in gavel_rate) || gavel_rate[$1, k] <= 0) {
    printf "%s:%d: Gavel has no v100 throughput for '%s' on %d GPUs\n", FILENAME, FNR, $1, k > "/dev/stderr"; bad = 1; exit 1
  }
  if (taken == 0) first_arrival = $6
  if (k > 1) gangs++
  trace_solo_s = $5 / gavel_rate[$1, k]
  # simgpu's rate counts k steps (one per rank) an iteration.
  iterations = int(trace_solo_s / scale * simgpu_rate[profile, k] / k + 0.5)
  if (iterations < 1) iterations = 1
  solo_s = iterations * k / simgpu_rate[profile, k]
  arrival_s = ($6 - first_arrival) / scale
  priority = (every > 0 && taken % every == 0) ? "guaranteed" : "opportunistic"
  printf "%d\t%s\t%s\t%d\t%.3f\t%.3f\t%s\t%.0f\t%d\n", taken, profile, priority, iterations, arrival_s,
         solo_s, $1, trace_solo_s, k
  type = gavel_type[profile]
  printf "%s\tiashim-fakejob --model %s\t--iterations\t0\t%d\t%.3f\t%d\n", type, profile, iterations * k,
         arrival_s, k > trace_out
  taken++
}
END {
  if (bad) exit 1
  if (taken < jobs) {
    printf "the trace has %d jobs of at most %d GPUs from number %d, not %d\n", taken, max_gpus, start, jobs > "/dev/stderr"
    exit 1
  }
  printf "%d of them on several GPUs; left out among them: %d of more than %d GPUs, %d of more than a node's %d in part of a node, %d that Gavel did not measure at their scale\n",
         gangs + 0, too_big + 0, max_gpus, part_nodes + 0, node_gpus, unmeasured + 0 > "/dev/stderr"
}
