// Hooks: where kernel handles come from, so launches can be labelled by name.
#include "libiashim/src/cuda_api.h"
#include "libiashim/src/forward.h"
#include "libiashim/src/real_driver.h"
#include "libiashim/src/runtime.h"

using iashim::ActiveRuntime;
using iashim::Forward;

namespace {

// Naming allocates, so it must not let an exception escape into the driver API.
void Name(const void* handle, const char* name) {
  if (handle == nullptr || name == nullptr) return;
  iashim::Runtime* rt = ActiveRuntime();
  if (rt == nullptr) return;
  try {
    rt->kernels().SetName(handle, name);
  } catch (...) {
  }
}

}  // namespace

IASHIM_EXPORT CUresult cuModuleGetFunction(CUfunction* f, CUmodule module, const char* name) {
  const CUresult rc = Forward(IASHIM_REAL(cuModuleGetFunction), f, module, name);
  if (rc == CUDA_SUCCESS && f != nullptr) Name(*f, name);
  return rc;
}

IASHIM_EXPORT CUresult cuLibraryGetKernel(CUkernel* kernel, CUlibrary library, const char* name) {
  const CUresult rc = Forward(IASHIM_REAL(cuLibraryGetKernel), kernel, library, name);
  if (rc == CUDA_SUCCESS && kernel != nullptr) Name(*kernel, name);
  return rc;
}

IASHIM_EXPORT CUresult cuKernelGetFunction(CUfunction* f, CUkernel kernel) {
  const CUresult rc = Forward(IASHIM_REAL(cuKernelGetFunction), f, kernel);
  if (rc != CUDA_SUCCESS || f == nullptr) return rc;
  // The function inherits the kernel's name, when we know it.
  if (iashim::Runtime* rt = ActiveRuntime()) {
    const uint32_t id = rt->kernels().IdOf(kernel);
    if (const char* name = rt->kernels().info(id).name.load(std::memory_order_acquire);
        name != nullptr && id != iashim::KernelRegistry::kOtherKernel) {
      Name(*f, name);
    }
  }
  return rc;
}

// Kernels launched but not yet named must be named while their module lives.
IASHIM_EXPORT CUresult cuModuleUnload(CUmodule module) {
  if (iashim::Runtime* rt = ActiveRuntime()) rt->DrainNow();
  return Forward(IASHIM_REAL(cuModuleUnload), module);
}

IASHIM_EXPORT CUresult cuLibraryUnload(CUlibrary library) {
  if (iashim::Runtime* rt = ActiveRuntime()) rt->DrainNow();
  return Forward(IASHIM_REAL(cuLibraryUnload), library);
}

IASHIM_EXPORT CUresult cuFuncGetName(const char** name, CUfunction f) {
  const CUresult rc = Forward(IASHIM_REAL(cuFuncGetName), name, f);
  if (rc == CUDA_SUCCESS && name != nullptr) Name(f, *name);
  return rc;
}
