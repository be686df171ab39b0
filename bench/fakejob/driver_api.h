// Resolves the CUDA driver entry points the way cudart does: dlopen
// libcuda.so.1, dlsym only cuGetProcAddress_v2, and fetch everything else
// through it by base name ("cuMemAlloc", not "cuMemAlloc_v2"), letting the
// driver pick the version for CUDA_VERSION and the stream flags. This is the
// path libiashim must intercept, so the fake job exercises it for real.
#ifndef IASHIM_BENCH_FAKEJOB_DRIVER_API_H_
#define IASHIM_BENCH_FAKEJOB_DRIVER_API_H_

#include <cuda.h>

#include <string>

#include "absl/status/statusor.h"

namespace iashim::fakejob {

// Function pointer types come from cuda.h's own prototypes; the macros there
// (cuMemAlloc -> cuMemAlloc_v2, ...) select the ABI a driver returns for the
// base name at this CUDA_VERSION.
struct DriverApi {
  void* handle = nullptr;  // from dlopen; never closed (as cudart does)
  decltype(&::cuGetProcAddress_v2) cuGetProcAddress = nullptr;
  decltype(&::cuGetErrorName) cuGetErrorName = nullptr;
  decltype(&::cuGetErrorString) cuGetErrorString = nullptr;
  decltype(&::cuInit) cuInit = nullptr;
  decltype(&::cuDriverGetVersion) cuDriverGetVersion = nullptr;
  decltype(&::cuDeviceGet) cuDeviceGet = nullptr;
  decltype(&::cuDeviceGetCount) cuDeviceGetCount = nullptr;
  decltype(&::cuDevicePrimaryCtxRetain) cuDevicePrimaryCtxRetain = nullptr;
  decltype(&::cuDevicePrimaryCtxRelease) cuDevicePrimaryCtxRelease = nullptr;
  decltype(&::cuCtxSetCurrent) cuCtxSetCurrent = nullptr;
#if CUDA_VERSION >= 13000
  // From CUDA 13.0 the base name resolves to the variant taking a context
  // (cuCtxSynchronize_v2); NULL means the current context.
  decltype(&::cuCtxSynchronize_v2) cuCtxSynchronize = nullptr;
#else
  decltype(&::cuCtxSynchronize) cuCtxSynchronize = nullptr;
#endif
  decltype(&::cuModuleLoadData) cuModuleLoadData = nullptr;
  decltype(&::cuModuleGetFunction) cuModuleGetFunction = nullptr;
  decltype(&::cuModuleUnload) cuModuleUnload = nullptr;
  decltype(&::cuMemAlloc) cuMemAlloc = nullptr;
  decltype(&::cuMemFree) cuMemFree = nullptr;
  decltype(&::cuStreamCreate) cuStreamCreate = nullptr;
  decltype(&::cuStreamDestroy) cuStreamDestroy = nullptr;
  decltype(&::cuStreamSynchronize) cuStreamSynchronize = nullptr;
  decltype(&::cuEventCreate) cuEventCreate = nullptr;
  decltype(&::cuEventRecord) cuEventRecord = nullptr;
  decltype(&::cuEventSynchronize) cuEventSynchronize = nullptr;
  decltype(&::cuEventElapsedTime) cuEventElapsedTime = nullptr;
  decltype(&::cuEventDestroy) cuEventDestroy = nullptr;
  decltype(&::cuLaunchKernel) cuLaunchKernel = nullptr;

  // "CUDA_ERROR_OUT_OF_MEMORY" (or "CUresult 123" if the driver can't say).
  std::string ErrorName(CUresult r) const;
};

// Loads `library` (normally "libcuda.so.1") and resolves every entry point.
// With `per_thread_stream`, look-ups use CU_GET_PROC_ADDRESS_PER_THREAD_
// DEFAULT_STREAM, so stream-ordered calls get their _ptsz/_ptds variants.
absl::StatusOr<DriverApi> LoadDriverApi(const std::string& library, bool per_thread_stream);

}  // namespace iashim::fakejob

#endif  // IASHIM_BENCH_FAKEJOB_DRIVER_API_H_
