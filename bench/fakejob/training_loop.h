// Replays a profile's training iteration through the driver API: the same
// calls, in the same order, that a framework on cudart makes, so that a
// preloaded libiashim sees a realistic job.
#ifndef IASHIM_BENCH_FAKEJOB_TRAINING_LOOP_H_
#define IASHIM_BENCH_FAKEJOB_TRAINING_LOOP_H_

#include <cuda.h>

#include <memory>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/fakejob/data_parallel.h"
#include "bench/fakejob/driver_api.h"
#include "bench/fakejob/model_profile.h"
#include "bench/fakejob/module_image.h"
#include "simgpu/include/simgpu/collective.h"

namespace iashim::fakejob {

enum class SyncMode {
  kContext,  // one cuCtxSynchronize per iteration (cudaDeviceSynchronize)
  kStreams,  // cuStreamSynchronize on each stream (loss.item() style)
  // cuStreamSynchronize on the kernel's stream after every launch, then as
  // kStreams: the job never has more than one kernel queued, the pathological
  // case for a throttle that only paces the launch rate.
  kKernel,
};

struct LoopConfig {
  int device = 0;
  bool per_thread_stream = false;  // stream 0 is the null (= per-thread) stream
  SyncMode sync = SyncMode::kContext;
  // Largest single cuMemAlloc: the footprint is allocated in segments, as a
  // caching allocator does, rather than in one request.
  uint64_t max_alloc_bytes = uint64_t{1} << 30;
  // Data-parallel: every iteration ends with this rank's all-reduce (the
  // image must declare it).
  std::optional<AllReduceRank> all_reduce;
};

// Sleeps without spinning (the host gap); resumes after signals so the gap is whole.
void SleepMicros(double us);

// Errors carry the failing call and the CUresult name. Codes:
// InvalidArgument for a bad --device, ResourceExhausted for
// CUDA_ERROR_OUT_OF_MEMORY, Internal for any other CUresult.
class TrainingLoop {
 public:
  static absl::StatusOr<std::unique_ptr<TrainingLoop>> Create(const DriverApi& api,
                                                              const ModelProfile& profile,
                                                              const ModuleImage& image,
                                                              const LoopConfig& config);

  TrainingLoop(const TrainingLoop&) = delete;
  TrainingLoop& operator=(const TrainingLoop&) = delete;
  // Frees memory, streams, events and the module; errors are ignored.
  ~TrainingLoop();

  // One iteration: host gap (nanosleep: data loading and optimizer CPU time,
  // during which the GPU idles, as in a real job), the kernel sequence (and
  // the all-reduce, data-parallel), then one synchronisation. Returns the GPU
  // time between events recorded on stream 0 around the launches, in ms.
  absl::StatusOr<double> RunIteration();

  // The two halves of an iteration after its host gap, for a process that
  // drives several devices: enqueue on every device, then finish on each.
  absl::Status Enqueue();
  absl::StatusOr<double> Finish();

  // Sum of the cuMemAlloc sizes.
  uint64_t allocated_bytes() const { return allocated_bytes_; }

 private:
  TrainingLoop(const DriverApi& api, const ModelProfile& profile, const ModuleImage& image,
               const LoopConfig& config)
      : api_(api), profile_(profile), image_(image), config_(config) {}

  absl::Status Init();
  absl::Status Check(CUresult r, const char* call) const;

  const DriverApi& api_;
  const ModelProfile& profile_;
  const ModuleImage& image_;
  const LoopConfig config_;

  CUdevice device_ = 0;
  CUcontext ctx_ = nullptr;
  bool ctx_retained_ = false;
  CUmodule module_ = nullptr;
  std::vector<CUfunction> functions_;
  std::vector<CUdeviceptr> allocations_;
  uint64_t allocated_bytes_ = 0;
  std::vector<CUstream> streams_;  // per profile stream; null = default/PTDS
  std::vector<CUstream> created_streams_;
  CUevent start_ = nullptr;
  CUevent stop_ = nullptr;
  simgpu_collective_args collective_args_{};  // what the all-reduce kernel is given
};

}  // namespace iashim::fakejob

#endif  // IASHIM_BENCH_FAKEJOB_TRAINING_LOOP_H_
