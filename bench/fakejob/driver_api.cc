#include "bench/fakejob/driver_api.h"

#include <dlfcn.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace iashim::fakejob {
namespace {

// Resolves one entry point by base name; the driver picks the version.
template <typename Fn>
absl::Status Resolve(const DriverApi& api, const char* name, cuuint64_t flags, Fn* out) {
  void* pfn = nullptr;
  CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  CUresult r = api.cuGetProcAddress(name, &pfn, CUDA_VERSION, flags, &found);
  if (r != CUDA_SUCCESS || found != CU_GET_PROC_ADDRESS_SUCCESS || pfn == nullptr) {
    const char* why = found == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                          ? "driver too old for this CUDA_VERSION"
                          : "symbol not found";
    return absl::NotFoundError(
        absl::StrCat("cuGetProcAddress_v2(\"", name, "\", ", CUDA_VERSION, ", flags=", flags,
                     ") failed: ", r == CUDA_SUCCESS ? why : api.ErrorName(r)));
  }
  *out = reinterpret_cast<Fn>(pfn);
  return absl::OkStatus();
}

}  // namespace

std::string DriverApi::ErrorName(CUresult r) const {
  const char* name = nullptr;
  if (cuGetErrorName != nullptr && cuGetErrorName(r, &name) == CUDA_SUCCESS && name != nullptr) {
    return name;
  }
  return absl::StrCat("CUresult ", static_cast<int>(r));
}

absl::StatusOr<DriverApi> LoadDriverApi(const std::string& library, bool per_thread_stream) {
  DriverApi api;
  api.handle = dlopen(library.c_str(), RTLD_NOW);
  if (api.handle == nullptr) {
    const char* err = dlerror();
    return absl::FailedPreconditionError(absl::StrCat("cannot load the CUDA driver ", library, ": ",
                                                      err != nullptr ? err : "unknown error",
                                                      ". Without a GPU, use the simulated driver: "
                                                      "LD_LIBRARY_PATH=build/simgpu"));
  }
  api.cuGetProcAddress =
      reinterpret_cast<decltype(api.cuGetProcAddress)>(dlsym(api.handle, "cuGetProcAddress_v2"));
  if (api.cuGetProcAddress == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(library, " has no cuGetProcAddress_v2 (driver older than CUDA 12?)"));
  }
  const cuuint64_t flags = per_thread_stream ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
                                             : CU_GET_PROC_ADDRESS_DEFAULT;
  // Error names first, so later failures can be described.
  absl::Status s = Resolve(api, "cuGetErrorName", flags, &api.cuGetErrorName);
  auto get = [&](const char* name, auto* out) {
    if (s.ok()) s = Resolve(api, name, flags, out);
  };
  get("cuGetErrorString", &api.cuGetErrorString);
  get("cuInit", &api.cuInit);
  get("cuDriverGetVersion", &api.cuDriverGetVersion);
  get("cuDeviceGet", &api.cuDeviceGet);
  get("cuDeviceGetCount", &api.cuDeviceGetCount);
  get("cuDevicePrimaryCtxRetain", &api.cuDevicePrimaryCtxRetain);
  get("cuDevicePrimaryCtxRelease", &api.cuDevicePrimaryCtxRelease);
  get("cuCtxSetCurrent", &api.cuCtxSetCurrent);
  get("cuCtxSynchronize", &api.cuCtxSynchronize);
  get("cuModuleLoadData", &api.cuModuleLoadData);
  get("cuModuleGetFunction", &api.cuModuleGetFunction);
  get("cuModuleUnload", &api.cuModuleUnload);
  get("cuMemAlloc", &api.cuMemAlloc);
  get("cuMemFree", &api.cuMemFree);
  get("cuStreamCreate", &api.cuStreamCreate);
  get("cuStreamDestroy", &api.cuStreamDestroy);
  get("cuStreamSynchronize", &api.cuStreamSynchronize);
  get("cuEventCreate", &api.cuEventCreate);
  get("cuEventRecord", &api.cuEventRecord);
  get("cuEventSynchronize", &api.cuEventSynchronize);
  get("cuEventElapsedTime", &api.cuEventElapsedTime);
  get("cuEventDestroy", &api.cuEventDestroy);
  get("cuLaunchKernel", &api.cuLaunchKernel);
  if (!s.ok()) return s;
  return api;
}

}  // namespace iashim::fakejob
