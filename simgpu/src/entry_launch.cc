// Entry points: kernel launches. A launch enqueues the kernel's modelled work on
// its stream and returns; the device simulation runs it (timeline.h). On a
// capturing stream the launch is recorded into the capture's graph instead.
//
// A CUkernel (cuLibraryGetKernel) may be passed as the CUfunction, as on CUDA 12:
// both handles are simgpu Function objects. The legacy launches (cuLaunchGrid
// and its block-shape and parameter calls) are in entry_launch_legacy.cc.
#include <algorithm>
#include <vector>

#include "simgpu/src/collective_cost.h"
#include "simgpu/src/driver.h"

using simgpu::Function;
using simgpu::Stream;

namespace {

// A cooperative grid must be resident all at once. simgpu bounds residency as
// an SM does when registers and shared memory do not bind: at most 2048 threads
// and 32 blocks per SM (Volta and later), so the grid may have at most
// SMs * min(32, 2048 / threads per block) blocks.
constexpr uint64_t kThreadsPerSm = 2048;
constexpr uint64_t kBlocksPerSm = 32;

uint64_t MaxCoResidentBlocks(uint64_t threads_per_block, int sm_count) {
  return uint64_t(sm_count) * std::min(kBlocksPerSm, kThreadsPerSm / threads_per_block);
}

// A grid's dimensions and block shape; block threads within 1..1024.
bool ValidShape(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz) {
  const uint64_t threads = uint64_t(bx) * by * bz;
  return gx != 0 && gy != 0 && gz != 0 && threads != 0 && threads <= 1024;
}

bool FitsCoResident(uint64_t blocks, uint64_t threads, const Stream* stream) {
  return blocks <= MaxCoResidentBlocks(threads, stream->ctx->dev->state().spec.sm_count);
}

// A collective kernel (module_image.h): its first parameter names its group,
// rank and message size; it waits for the group's other ranks, then takes the
// all-reduce's transfer time. simgpu does not capture collectives into graphs.
CUresult LaunchCollective(const Function& fn, uint64_t blocks, Stream* stream, void** params) {
  if (params == nullptr || params[0] == nullptr) {
    simgpu::LogOnce("a collective kernel needs a simgpu_collective_args as its first parameter");
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (simgpu::Capturing(stream)) {
    simgpu::LogOnce("collective kernels cannot be captured into a graph");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  const auto& args = *static_cast<const simgpu_collective_args*>(params[0]);
  int32_t slot = -1;
  uint64_t seq = 0;
  simgpu::Driver& driver = simgpu::Driver::Get();
  if (CUresult rc = driver.NextCollective(stream->ctx->dev, args, &slot, &seq); rc != CUDA_SUCCESS)
    return rc;
  // Which of the two the ring takes is known once every rank has joined.
  const double link = driver.link_gbps(), fabric = driver.fabric_gbps();
  const double within_ns =
      simgpu::AllReduceNs(args.bytes, args.nranks, simgpu::RingGbps(link, fabric, false));
  const double spanning_ns =
      simgpu::AllReduceNs(args.bytes, args.nranks, simgpu::RingGbps(link, fabric, true));
  simgpu::EnqueueBlocking(stream, simgpu::CollectiveOp(fn.model, blocks, stream, slot, args.rank,
                                                       seq, within_ns, spanning_ns));
  return CUDA_SUCCESS;
}

CUresult LaunchEx(const CUlaunchConfig* config, CUfunction f, bool per_thread, void** params) {
  if (config == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (config->numAttrs > 0 && config->attrs == nullptr) return CUDA_ERROR_INVALID_VALUE;
  // The cooperative attribute makes it a cooperative launch, with its limit.
  bool cooperative = false;
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    if (config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE)
      cooperative = config->attrs[i].value.cooperative != 0;
  }
  return simgpu::LaunchKernel(f, config->gridDimX, config->gridDimY, config->gridDimZ,
                              config->blockDimX, config->blockDimY, config->blockDimZ,
                              config->hStream, per_thread, cooperative, params);
}

// cuLaunchCooperativeKernelMultiDevice's rules, checked for every entry before
// any is launched: one grid and block shape for all, each on a stream of its
// own device that is not a default stream, each grid co-resident.
CUresult CheckMultiDevice(const CUDA_LAUNCH_PARAMS* list, unsigned count, unsigned flags) {
  constexpr unsigned kFlags = CUDA_COOPERATIVE_LAUNCH_MULTI_DEVICE_NO_PRE_LAUNCH_SYNC |
                              CUDA_COOPERATIVE_LAUNCH_MULTI_DEVICE_NO_POST_LAUNCH_SYNC;
  if (list == nullptr || count == 0 || (flags & ~kFlags) != 0) return CUDA_ERROR_INVALID_VALUE;
  std::vector<int> devices;
  for (unsigned i = 0; i < count; ++i) {
    const CUDA_LAUNCH_PARAMS& p = list[i];
    const CUDA_LAUNCH_PARAMS& first = list[0];
    if (p.gridDimX != first.gridDimX || p.gridDimY != first.gridDimY ||
        p.gridDimZ != first.gridDimZ || p.blockDimX != first.blockDimX ||
        p.blockDimY != first.blockDimY || p.blockDimZ != first.blockDimZ ||
        p.sharedMemBytes != first.sharedMemBytes)
      return CUDA_ERROR_INVALID_VALUE;
    if (!ValidShape(p.gridDimX, p.gridDimY, p.gridDimZ, p.blockDimX, p.blockDimY, p.blockDimZ))
      return CUDA_ERROR_INVALID_VALUE;
    const Function* fn = simgpu::AsFunction(p.function);
    if (fn == nullptr) return CUDA_ERROR_INVALID_HANDLE;
    // The streams say which device each kernel runs on: default streams cannot.
    if (p.hStream == nullptr || p.hStream == CU_STREAM_LEGACY || p.hStream == CU_STREAM_PER_THREAD)
      return CUDA_ERROR_INVALID_VALUE;
    const Stream* s = simgpu::AsStream(p.hStream);
    if (s == nullptr) return CUDA_ERROR_INVALID_HANDLE;
    // A module's function belongs to its context; a library's kernel to none.
    if (fn->module != nullptr && fn->module->ctx != s->ctx) return CUDA_ERROR_INVALID_CONTEXT;
    for (int d : devices) {
      if (d == s->ctx->physical) return CUDA_ERROR_INVALID_VALUE;
    }
    devices.push_back(s->ctx->physical);
    const uint64_t threads = uint64_t(p.blockDimX) * p.blockDimY * p.blockDimZ;
    if (!FitsCoResident(uint64_t(p.gridDimX) * p.gridDimY * p.gridDimZ, threads, s))
      return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
  }
  return CUDA_SUCCESS;
}

}  // namespace

namespace simgpu {

CUresult LaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                      unsigned bz, CUstream hstream, bool per_thread, bool cooperative,
                      void** params) {
  Function* fn = AsFunction(f);
  if (fn == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (!ValidShape(gx, gy, gz, bx, by, bz)) return CUDA_ERROR_INVALID_VALUE;
  CUresult rc;
  Stream* stream = ResolveStream(hstream, per_thread, &rc);
  if (stream == nullptr) return rc;
  const uint64_t blocks = uint64_t(gx) * gy * gz;
  if (cooperative && !FitsCoResident(blocks, uint64_t(bx) * by * bz, stream))
    return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
  if (fn->model.collective != Collective::kNone) {
    return LaunchCollective(*fn, blocks, stream, params);
  }
  if (Capturing(stream)) {
    GraphNode node;
    node.kind = NodeKind::kKernel;
    node.model = fn->model;
    node.blocks = blocks;
    bool captured = false;
    rc = CaptureNode(stream, node, &captured);
    if (rc != CUDA_SUCCESS || captured) return rc;
  }
  EnqueueBlocking(stream, KernelOp(fn->model, blocks, stream));
  return CUDA_SUCCESS;
}

}  // namespace simgpu

SIMGPU_EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy,
                                      unsigned int gz, unsigned int bx, unsigned int by,
                                      unsigned int bz, unsigned int, CUstream hstream, void** params,
                                      void**) {
  return simgpu::LaunchKernel(f, gx, gy, gz, bx, by, bz, hstream, false, false, params);
}

SIMGPU_EXPORT CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned int gx, unsigned int gy,
                                           unsigned int gz, unsigned int bx, unsigned int by,
                                           unsigned int bz, unsigned int, CUstream hstream,
                                           void** params, void**) {
  return simgpu::LaunchKernel(f, gx, gy, gz, bx, by, bz, hstream, true, false, params);
}

SIMGPU_EXPORT CUresult cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f,
                                        void** params, void**) {
  return LaunchEx(config, f, false, params);
}

SIMGPU_EXPORT CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig* config, CUfunction f,
                                             void** params, void**) {
  return LaunchEx(config, f, true, params);
}

SIMGPU_EXPORT CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gx, unsigned int gy,
                                                 unsigned int gz, unsigned int bx, unsigned int by,
                                                 unsigned int bz, unsigned int, CUstream hstream,
                                                 void** params) {
  return simgpu::LaunchKernel(f, gx, gy, gz, bx, by, bz, hstream, false, true, params);
}

SIMGPU_EXPORT CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned int gx,
                                                      unsigned int gy, unsigned int gz,
                                                      unsigned int bx, unsigned int by,
                                                      unsigned int bz, unsigned int,
                                                      CUstream hstream, void** params) {
  return simgpu::LaunchKernel(f, gx, gy, gz, bx, by, bz, hstream, true, true, params);
}

// The kernels run side by side on their devices, each as a cooperative launch on
// its stream. The grid-wide barrier across devices before and after (unless the
// NO_PRE/NO_POST_LAUNCH_SYNC flags) is not modelled: each stream runs on its own.
SIMGPU_EXPORT CUresult cuLaunchCooperativeKernelMultiDevice(CUDA_LAUNCH_PARAMS* list,
                                                            unsigned int count,
                                                            unsigned int flags) {
  if (CUresult rc = CheckMultiDevice(list, count, flags); rc != CUDA_SUCCESS) return rc;
  for (unsigned i = 0; i < count; ++i) {
    const CUDA_LAUNCH_PARAMS& p = list[i];
    const CUresult rc =
        simgpu::LaunchKernel(p.function, p.gridDimX, p.gridDimY, p.gridDimZ, p.blockDimX,
                             p.blockDimY, p.blockDimZ, p.hStream, false, true, p.kernelParams);
    if (rc != CUDA_SUCCESS) return rc;
  }
  return CUDA_SUCCESS;
}
