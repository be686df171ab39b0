// A job as simgpu's device model sees it, rebuilt from what the shim recorded
// of a real process (an IASHIM_TRACE file): one training iteration's kernels
// in launch order with their measured durations and grids, and the host time
// around them. With two of them, simgpu's model predicts what the two
// processes keep of their speed when they share a GPU, and scripts/gpu-check.sh
// prints that beside what the GPU measured.
//
// An iteration is what one thread launches between two synchronising calls
// (a training loop synchronises once a step: a loss read back, a stream
// synchronise). The most common kernel sequence among the steady iterations
// (the first fifth and last tenth left out) is the job's iteration; a kernel's
// duration is the mean of its sampled launches; the host time is what the
// iteration's median wall time leaves after its kernels. The shim times 1
// launch in IASHIM_SAMPLE_EVERY, so some kernels may never have been timed:
// they share what the wall time leaves after the host time before the
// iteration's first launch and the timed kernels (exact for a loop that
// computes, then launches a step and waits for it). The trace does not say
// how memory-bound a kernel is: rules by kernel name set it (default 0.5).
#ifndef IASHIM_BENCH_PREDICT_TRACE_JOB_H_
#define IASHIM_BENCH_PREDICT_TRACE_JOB_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "libiashim/src/trace_reader.h"
#include "simgpu/src/virtual_cosim.h"

namespace iashim::predict {

struct TraceJobOptions {
  int sm_count = 80;  // the GPU's, for each kernel's SM fill
  // (substring of the kernel name, memory intensity 0..1); the first match wins.
  std::vector<std::pair<std::string, double>> mem_rules;
  double default_mem_intensity = 0.5;
};

struct TraceJob {
  simgpu::VirtualJob job;
  double measured_it_per_s = 0;    // from the trace's iteration wall times
  size_t iterations_used = 0;      // steady iterations the figures come from
  size_t kernels_per_iteration = 0;
  double gpu_ms_per_iteration = 0;  // sum of the iteration's kernel durations
  double host_ms_per_iteration = 0;
  size_t unsampled_kernels = 0;  // kernels of the iteration none of whose launches was timed
};

absl::StatusOr<TraceJob> JobFromTrace(const Trace& trace, const TraceJobOptions& options);

// "gemm=0.2,triad=0.95" -> rules; an error names the bad part.
absl::StatusOr<std::vector<std::pair<std::string, double>>> ParseMemRules(const std::string& text);

}  // namespace iashim::predict

#endif  // IASHIM_BENCH_PREDICT_TRACE_JOB_H_
