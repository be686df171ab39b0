// `iashim-trace --summary`: one row per kernel, the kernels that cost the most
// GPU time first, and a totals row. Pure (a Trace in, CSV text out) so the
// ordering and the unsampled cases are unit-tested.
//
// The shim times only 1 launch in IASHIM_SAMPLE_EVERY, so a kernel's GPU time
// is estimated: its sampled mean times its launches. A kernel with no sample
// has no estimate: its time columns read "-" (not 0, which would claim it
// cost nothing), and it sorts after every timed kernel.
//
//   kernel,launches,sampled,mean_gpu_ns,est_gpu_ns,gpu_pct
//   gemm_tiled,640,10,1500000,960000000,92.3
//   relu,640,10,125000,80000000,7.7
//   memset_kernel,3,0,-,-,-
//   (total),1283,20,-,1040000000,100.0
#ifndef IASHIM_TOOLS_TRACE_SUMMARY_H_
#define IASHIM_TOOLS_TRACE_SUMMARY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "libiashim/src/trace_reader.h"

namespace iashim {

struct KernelSummary {
  std::string kernel;  // "(graph)" for graph launches
  uint64_t launches = 0;
  uint64_t sampled = 0;
  uint64_t sampled_gpu_ns = 0;  // the sum over the sampled launches

  std::optional<uint64_t> MeanGpuNs() const;
  std::optional<double> EstimatedGpuNs() const;  // mean x launches
};

// Launches and graph launches (not syncs) by kernel name, in display order:
// estimated GPU time, largest first; then the unsampled by launches, most
// first; ties by name.
std::vector<KernelSummary> SummarizeKernels(const Trace& trace);

// `field` as a CSV field: kernel names are C++ signatures full of commas, so
// they are quoted per RFC 4180 (the event listing uses it too).
std::string CsvField(const std::string& field);

// The CSV above: a header, `rows` in their order, then "(total)".
std::string FormatSummaryCsv(const std::vector<KernelSummary>& rows);

}  // namespace iashim

#endif  // IASHIM_TOOLS_TRACE_SUMMARY_H_
