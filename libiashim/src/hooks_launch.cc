// Hooks: kernel and graph launches. Each forwards to the real entry point of
// the same name and records the launch (launch_path.h).
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
