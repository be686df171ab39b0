// A model profile describes one training iteration as the GPU sees it: the
// kernel launch sequence (with each kernel's modelled solo duration, memory
// intensity and grid), the host gap between iterations and the memory
// footprint. Format: bench/data/models/README.md.
#ifndef IASHIM_BENCH_FAKEJOB_MODEL_PROFILE_H_
#define IASHIM_BENCH_FAKEJOB_MODEL_PROFILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace iashim::fakejob {

// Upper bounds that keep a typo (count 1000000) from exhausting memory.
inline constexpr int64_t kMaxLaunchesPerIteration = 200000;
inline constexpr int kMaxRepeatDepth = 8;
inline constexpr int kMaxStreams = 2;

// One kernel launch in the expanded per-iteration sequence.
struct KernelLaunch {
  std::string name;
  double duration_us = 0;    // modelled solo duration on the reference GPU
  double mem_intensity = 0;  // 0 = compute-bound .. 1 = memory-bound
  uint32_t grid_blocks = 1;  // gridDim.x; blockDim is always 256
  int stream = 0;            // index into the job's streams
  int line = 0;              // profile line it came from, for messages
};

struct ModelProfile {
  std::string name;
  std::string path;    // file it was read from ("" if from a string)
  int batch_size = 0;  // informational; 0 if not given
  uint64_t memory_bytes = 0;
  double host_gap_us = 0;
  int streams = 1;
  // What data-parallel training all-reduces each iteration (the gradients);
  // 0 when the profile does not say (fakejob --gradient-mib can).
  uint64_t gradient_bytes = 0;
  std::vector<std::string> sources;    // "source:" lines, in order
  std::vector<KernelLaunch> launches;  // one iteration, expanded

  // Sum of kernel durations: the iteration's GPU time if run serially.
  double GpuTimeUs() const;
  // GPU time plus host gap: the solo iteration time this profile models.
  double SoloIterationUs() const;
};

// Parses and validates profile text. `filename` prefixes error messages
// ("file:line: message").
absl::StatusOr<ModelProfile> ParseModelProfile(absl::string_view text, absl::string_view filename);

// Reads and parses a profile file.
absl::StatusOr<ModelProfile> LoadModelProfile(const std::string& path);

}  // namespace iashim::fakejob

#endif  // IASHIM_BENCH_FAKEJOB_MODEL_PROFILE_H_
