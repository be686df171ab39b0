#include "bench/fakejob/training_loop.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <ctime>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace iashim::fakejob {
namespace {

constexpr unsigned kBlockThreads = 256;
// NCCL's ring all-reduce runs one block per channel; 8 channels is typical
// within a V100 node.
constexpr unsigned kAllReduceBlocks = 8;

}  // namespace

void SleepMicros(double us) {
  if (us <= 0) return;
  const double whole = std::floor(us / 1e6);
  timespec req{static_cast<time_t>(whole), static_cast<long>((us - whole * 1e6) * 1e3)};
  timespec rem{};
  while (nanosleep(&req, &rem) != 0 && errno == EINTR) req = rem;
}

absl::StatusOr<std::unique_ptr<TrainingLoop>> TrainingLoop::Create(const DriverApi& api,
                                                                   const ModelProfile& profile,
                                                                   const ModuleImage& image,
                                                                   const LoopConfig& config) {
  std::unique_ptr<TrainingLoop> loop(new TrainingLoop(api, profile, image, config));
  if (absl::Status s = loop->Init(); !s.ok()) return s;
  return loop;
}

absl::Status TrainingLoop::Check(CUresult r, const char* call) const {
  if (r == CUDA_SUCCESS) return absl::OkStatus();
  std::string msg = absl::StrCat(call, " failed: ", api_.ErrorName(r));
  if (r == CUDA_ERROR_OUT_OF_MEMORY) return absl::ResourceExhaustedError(msg);
  return absl::InternalError(msg);
}

absl::Status TrainingLoop::Init() {
  absl::Status s = Check(api_.cuInit(0), "cuInit");
  if (!s.ok()) return s;
  int count = 0;
  if (s = Check(api_.cuDeviceGetCount(&count), "cuDeviceGetCount"); !s.ok()) {
    return s;
  }
  if (config_.device < 0 || config_.device >= count) {
    return absl::InvalidArgumentError(
        absl::StrCat("--device ", config_.device, ": the driver reports ", count, " device(s)"));
  }
  if (s = Check(api_.cuDeviceGet(&device_, config_.device), "cuDeviceGet"); !s.ok()) {
    return s;
  }
  // The primary context is what cudart uses; retain + set current as it does.
  if (s = Check(api_.cuDevicePrimaryCtxRetain(&ctx_, device_), "cuDevicePrimaryCtxRetain");
      !s.ok()) {
    return s;
  }
  ctx_retained_ = true;
  if (s = Check(api_.cuCtxSetCurrent(ctx_), "cuCtxSetCurrent"); !s.ok()) {
    return s;
  }

  if (s = Check(api_.cuModuleLoadData(&module_, image_.text.c_str()), "cuModuleLoadData");
      !s.ok()) {
    return s;
  }
  functions_.resize(image_.functions.size());
  for (size_t i = 0; i < functions_.size(); ++i) {
    CUresult r = api_.cuModuleGetFunction(&functions_[i], module_, image_.functions[i].c_str());
    if (r != CUDA_SUCCESS) {
      return Check(r, absl::StrCat("cuModuleGetFunction(\"", image_.functions[i], "\")").c_str());
    }
  }

  uint64_t left = profile_.memory_bytes;
  while (left > 0) {
    const uint64_t size = std::min(left, config_.max_alloc_bytes);
    CUdeviceptr ptr = 0;
    if (s = Check(api_.cuMemAlloc(&ptr, size), "cuMemAlloc"); !s.ok()) {
      return s;
    }
    allocations_.push_back(ptr);
    allocated_bytes_ += size;
    left -= size;
  }

  streams_.assign(profile_.streams, nullptr);
  // With per-thread default streams, stream 0 stays the null stream, which
  // the _ptsz entry points treat as this thread's stream.
  for (int i = config_.per_thread_stream ? 1 : 0; i < profile_.streams; ++i) {
    CUstream stream = nullptr;
    if (s = Check(api_.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
        !s.ok()) {
      return s;
    }
    created_streams_.push_back(stream);
    streams_[i] = stream;
  }
  if (config_.all_reduce) {
    if (image_.all_reduce_function < 0) {
      return absl::InternalError("the module image declares no all-reduce kernel");
    }
    const AllReduceRank& a = *config_.all_reduce;
    collective_args_ = {};
    a.group.copy(collective_args_.group, sizeof(collective_args_.group) - 1);
    collective_args_.rank = static_cast<uint32_t>(a.rank);
    collective_args_.nranks = static_cast<uint32_t>(a.world_size);
    collective_args_.bytes = a.bytes;
  }
  if (s = Check(api_.cuEventCreate(&start_, CU_EVENT_DEFAULT), "cuEventCreate"); !s.ok()) {
    return s;
  }
  return Check(api_.cuEventCreate(&stop_, CU_EVENT_DEFAULT), "cuEventCreate");
}

absl::StatusOr<double> TrainingLoop::RunIteration() {
  SleepMicros(profile_.host_gap_us);
  if (absl::Status s = Enqueue(); !s.ok()) return s;
  return Finish();
}

absl::Status TrainingLoop::Enqueue() {
  // Several loops in one process each keep their own device's context.
  absl::Status s = Check(api_.cuCtxSetCurrent(ctx_), "cuCtxSetCurrent");
  if (!s.ok()) return s;
  if (s = Check(api_.cuEventRecord(start_, streams_[0]), "cuEventRecord"); !s.ok()) return s;
  const std::vector<KernelLaunch>& launches = profile_.launches;
  for (size_t i = 0; i < launches.size(); ++i) {
    const KernelLaunch& k = launches[i];
    CUresult r = api_.cuLaunchKernel(functions_[image_.launch_function[i]], k.grid_blocks, 1, 1,
                                     kBlockThreads, 1, 1, 0, streams_[k.stream], nullptr, nullptr);
    if (r != CUDA_SUCCESS) return Check(r, "cuLaunchKernel");
    if (config_.sync == SyncMode::kKernel) {
      if (s = Check(api_.cuStreamSynchronize(streams_[k.stream]), "cuStreamSynchronize"); !s.ok()) {
        return s;
      }
    }
  }
  if (config_.all_reduce) {
    // NCCL's kernel reads its communicator from its arguments; simgpu's, the
    // group's name, this rank and the bytes (simgpu/include/simgpu/collective.h).
    void* params[] = {&collective_args_};
    CUresult r = api_.cuLaunchKernel(functions_[image_.all_reduce_function], kAllReduceBlocks, 1,
                                     1, kBlockThreads, 1, 1, 0, streams_[0], params, nullptr);
    if (r != CUDA_SUCCESS) return Check(r, "cuLaunchKernel (all-reduce)");
  }
  return Check(api_.cuEventRecord(stop_, streams_[0]), "cuEventRecord");
}

absl::StatusOr<double> TrainingLoop::Finish() {
  absl::Status s = Check(api_.cuCtxSetCurrent(ctx_), "cuCtxSetCurrent");
  if (!s.ok()) return s;
  if (config_.sync == SyncMode::kContext) {
#if CUDA_VERSION >= 13000
    s = Check(api_.cuCtxSynchronize(ctx_), "cuCtxSynchronize");
#else
    s = Check(api_.cuCtxSynchronize(), "cuCtxSynchronize");
#endif
    if (!s.ok()) return s;
  } else {
    for (CUstream stream : streams_) {
      if (s = Check(api_.cuStreamSynchronize(stream), "cuStreamSynchronize"); !s.ok()) {
        return s;
      }
    }
  }
  float ms = 0;
  if (s = Check(api_.cuEventElapsedTime(&ms, start_, stop_), "cuEventElapsedTime"); !s.ok()) {
    return s;
  }
  return static_cast<double>(ms);
}

TrainingLoop::~TrainingLoop() {
  // Best effort: the process is usually exiting, and a failing driver must
  // not turn a clean summary into a crash.
  if (ctx_ != nullptr) api_.cuCtxSetCurrent(ctx_);
  if (stop_ != nullptr) api_.cuEventDestroy(stop_);
  if (start_ != nullptr) api_.cuEventDestroy(start_);
  for (CUstream stream : created_streams_) api_.cuStreamDestroy(stream);
  for (CUdeviceptr ptr : allocations_) api_.cuMemFree(ptr);
  if (module_ != nullptr) api_.cuModuleUnload(module_);
  if (ctx_retained_) api_.cuDevicePrimaryCtxRelease(device_);
}

}  // namespace iashim::fakejob
