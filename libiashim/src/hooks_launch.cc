// Hooks: kernel and graph launches. Each forwards to the real entry point of
// the same name and records the launch (launch_path.h). The legacy launches
// (cuLaunch, cuLaunchGrid, cuLaunchGridAsync: the block shape set beforehand
// with cuFuncSetBlockShape) and the deprecated multi-device cooperative launch
// are gated like the others, so no launch family runs past a budget.
#include "libiashim/src/cuda_api.h"
#include "libiashim/src/forward.h"
#include "libiashim/src/launch_path.h"

using iashim::ActiveRuntime;
using iashim::Forward;
using iashim::InterceptLaunch;
using iashim::LaunchShape;
using iashim::CallApi;
using iashim::RecordKind;

namespace {

template <typename Fn>
CUresult LaunchKernel(Fn real, bool per_thread, CUfunction f, unsigned gx, unsigned gy,
                      unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shmem,
                      CUstream stream, void** params, void** extra) {
  iashim::Runtime* rt = ActiveRuntime();
  if (rt == nullptr || real == nullptr) {
    return Forward(real, f, gx, gy, gz, bx, by, bz, shmem, stream, params, extra);
  }
  const LaunchShape shape{{gx, gy, gz}, {bx, by, bz}, shmem};
  return InterceptLaunch(rt, RecordKind::kLaunch, CallApi::kLaunchKernel, f, &shape, stream,
                         per_thread,
                         [&] { return real(f, gx, gy, gz, bx, by, bz, shmem, stream, params, extra); });
}

template <typename Fn>
CUresult LaunchKernelEx(Fn real, bool per_thread, const CUlaunchConfig* config, CUfunction f,
                        void** params, void** extra) {
  iashim::Runtime* rt = ActiveRuntime();
  if (rt == nullptr || real == nullptr || config == nullptr) {
    return Forward(real, config, f, params, extra);
  }
  const LaunchShape shape{{config->gridDimX, config->gridDimY, config->gridDimZ},
                          {config->blockDimX, config->blockDimY, config->blockDimZ},
                          config->sharedMemBytes};
  return InterceptLaunch(rt, RecordKind::kLaunch, CallApi::kLaunchKernelEx, f, &shape,
                         config->hStream, per_thread, [&] { return real(config, f, params, extra); });
}

template <typename Fn>
CUresult LaunchCooperative(Fn real, bool per_thread, CUfunction f, unsigned gx, unsigned gy,
                           unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shmem,
                           CUstream stream, void** params) {
  iashim::Runtime* rt = ActiveRuntime();
  if (rt == nullptr || real == nullptr) {
    return Forward(real, f, gx, gy, gz, bx, by, bz, shmem, stream, params);
  }
  const LaunchShape shape{{gx, gy, gz}, {bx, by, bz}, shmem};
  return InterceptLaunch(rt, RecordKind::kLaunch, CallApi::kLaunchCooperativeKernel, f, &shape,
                         stream, per_thread,
                         [&] { return real(f, gx, gy, gz, bx, by, bz, shmem, stream, params); });
}

template <typename Fn>
CUresult GraphLaunch(Fn real, bool per_thread, CUgraphExec exec, CUstream stream) {
  iashim::Runtime* rt = ActiveRuntime();
  if (rt == nullptr || real == nullptr) return Forward(real, exec, stream);
  // The graph exec is registered like a kernel: its cost is learned the same way.
  return InterceptLaunch(rt, RecordKind::kGraphLaunch, CallApi::kGraphLaunch, exec, nullptr,
                         stream, per_thread, [&] { return real(exec, stream); });
}

// The legacy launches: a grid of w x h blocks of the function's preset shape,
// which the shim does not track, so the record carries the grid only.
template <typename Call>
CUresult LaunchLegacy(const void* f, unsigned gx, unsigned gy, CUstream stream, Call&& call) {
  iashim::Runtime* rt = ActiveRuntime();
  if (rt == nullptr) return call();
  const LaunchShape shape{{gx, gy, 1}, {0, 0, 0}, 0};
  return InterceptLaunch(rt, RecordKind::kLaunch, CallApi::kLaunchLegacy, f, &shape, stream,
                         false, call);
}

// One call launches a kernel on each of several devices' streams. Each is
// admitted by the budget in turn before the one real call, and recorded as
// its own launch; the call is not timed (one event pair cannot time kernels on
// several devices). Each is charged to, and recorded on, its stream's device.
template <typename Fn>
CUresult LaunchMultiDevice(Fn real, CUDA_LAUNCH_PARAMS* list, unsigned count, unsigned flags) {
  constexpr unsigned kMaxDevices = 64;
  iashim::Runtime* rt = ActiveRuntime();
  iashim::ThreadBuffer* tb = iashim::ThreadBuffer::Current();
  if (rt == nullptr || real == nullptr || tb == nullptr || list == nullptr || count == 0 ||
      count > kMaxDevices) {
    return Forward(real, list, count, flags);
  }
  uint32_t kernels[kMaxDevices];
  uint8_t devices[kMaxDevices];
  const bool gated = rt->gate().throttled();
  for (unsigned i = 0; i < count; ++i) {
    kernels[i] = list[i].function != nullptr ? rt->kernels().IdOf(list[i].function) : 0;
    devices[i] = iashim::StreamDevice(list[i].hStream, &tb->device_cache());
    if (gated) iashim::HoldForBudget(rt, kernels[i], list[i].hStream, false, devices[i]);
  }
  const CUresult rc = real(list, count, flags);
  if (rc != CUDA_SUCCESS) return rc;
  for (unsigned i = 0; i < count; ++i) {
    const CUDA_LAUNCH_PARAMS& p = list[i];
    const LaunchShape shape{{p.gridDimX, p.gridDimY, p.gridDimZ},
                            {p.blockDimX, p.blockDimY, p.blockDimZ},
                            p.sharedMemBytes};
    iashim::Record(tb, RecordKind::kLaunch, CallApi::kLaunchCooperativeMultiDevice, false,
                   kernels[i], &shape, p.hStream, iashim::kNotSampled, devices[i]);
    if (gated) rt->gate().Submitted(p.hStream, false);
  }
  return rc;
}

}  // namespace

IASHIM_EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                                      unsigned bx, unsigned by, unsigned bz, unsigned shmem,
                                      CUstream stream, void** params, void** extra) {
  return LaunchKernel(IASHIM_REAL(cuLaunchKernel), false, f, gx, gy, gz, bx, by, bz, shmem,
                      stream, params, extra);
}

IASHIM_EXPORT CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                                           unsigned bx, unsigned by, unsigned bz, unsigned shmem,
                                           CUstream stream, void** params, void** extra) {
  return LaunchKernel(IASHIM_REAL(cuLaunchKernel_ptsz), true, f, gx, gy, gz, bx, by, bz, shmem,
                      stream, params, extra);
}

IASHIM_EXPORT CUresult cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f,
                                        void** params, void** extra) {
  return LaunchKernelEx(IASHIM_REAL(cuLaunchKernelEx), false, config, f, params, extra);
}

IASHIM_EXPORT CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig* config, CUfunction f,
                                             void** params, void** extra) {
  return LaunchKernelEx(IASHIM_REAL(cuLaunchKernelEx_ptsz), true, config, f, params, extra);
}

IASHIM_EXPORT CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned gx, unsigned gy,
                                                 unsigned gz, unsigned bx, unsigned by,
                                                 unsigned bz, unsigned shmem, CUstream stream,
                                                 void** params) {
  return LaunchCooperative(IASHIM_REAL(cuLaunchCooperativeKernel), false, f, gx, gy, gz, bx, by,
                           bz, shmem, stream, params);
}

IASHIM_EXPORT CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned gx, unsigned gy,
                                                      unsigned gz, unsigned bx, unsigned by,
                                                      unsigned bz, unsigned shmem,
                                                      CUstream stream, void** params) {
  return LaunchCooperative(IASHIM_REAL(cuLaunchCooperativeKernel_ptsz), true, f, gx, gy, gz, bx,
                           by, bz, shmem, stream, params);
}

IASHIM_EXPORT CUresult cuGraphLaunch(CUgraphExec exec, CUstream stream) {
  return GraphLaunch(IASHIM_REAL(cuGraphLaunch), false, exec, stream);
}

IASHIM_EXPORT CUresult cuGraphLaunch_ptsz(CUgraphExec exec, CUstream stream) {
  return GraphLaunch(IASHIM_REAL(cuGraphLaunch_ptsz), true, exec, stream);
}

IASHIM_EXPORT CUresult cuLaunch(CUfunction f) {
  auto real = IASHIM_REAL(cuLaunch);
  if (real == nullptr) return CUDA_ERROR_NOT_SUPPORTED;
  return LaunchLegacy(f, 1, 1, nullptr, [&] { return real(f); });
}

IASHIM_EXPORT CUresult cuLaunchGrid(CUfunction f, int width, int height) {
  auto real = IASHIM_REAL(cuLaunchGrid);
  if (real == nullptr) return CUDA_ERROR_NOT_SUPPORTED;
  return LaunchLegacy(f, unsigned(width), unsigned(height), nullptr,
                      [&] { return real(f, width, height); });
}

IASHIM_EXPORT CUresult cuLaunchGridAsync(CUfunction f, int width, int height, CUstream stream) {
  auto real = IASHIM_REAL(cuLaunchGridAsync);
  if (real == nullptr) return CUDA_ERROR_NOT_SUPPORTED;
  return LaunchLegacy(f, unsigned(width), unsigned(height), stream,
                      [&] { return real(f, width, height, stream); });
}

IASHIM_EXPORT CUresult cuLaunchCooperativeKernelMultiDevice(CUDA_LAUNCH_PARAMS* list,
                                                            unsigned int count,
                                                            unsigned int flags) {
  return LaunchMultiDevice(IASHIM_REAL(cuLaunchCooperativeKernelMultiDevice), list, count, flags);
}
