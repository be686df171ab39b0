// Hooks: cuGetProcAddress and cuGetProcAddress_v2, the way CUDA 11.3+ runtimes
// (PyTorch, JAX, Triton, CuPy) find every entry point.
//
// The real driver answers first, so versions and flags mean exactly what the
// driver says they mean. Then, if its answer is one of our hooked entry points
// (matched by address; by the versioned name when the driver hands out
// internal addresses), the caller gets our hook instead.
#include "libiashim/src/cuda_api.h"
#include "libiashim/src/hook_table.h"
#include "libiashim/src/log.h"
#include "libiashim/src/real_driver.h"
#include "libiashim/src/runtime.h"

namespace {

CUresult Lookup(iashim::LookupPath path, const char* symbol, void** pfn, int cuda_version,
                cuuint64_t flags, CUdriverProcAddressQueryResult* status) {
  iashim::ActiveRuntime();  // opens the real driver on first use
  auto real_v2 = IASHIM_REAL(cuGetProcAddress_v2);
  auto real_v1 = IASHIM_REAL(cuGetProcAddress);
  CUresult rc;
  if (path == iashim::LookupPath::kProcV1 && real_v1 != nullptr) {
    rc = real_v1(symbol, pfn, cuda_version, flags);
  } else if (real_v2 != nullptr) {
    rc = real_v2(symbol, pfn, cuda_version, flags, status);
  } else if (real_v1 != nullptr) {
    rc = real_v1(symbol, pfn, cuda_version, flags);
  } else {
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  if (rc != CUDA_SUCCESS || pfn == nullptr || *pfn == nullptr) return rc;
  const bool per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
  int hook = iashim::FindHookByAddress(*pfn);
  if (hook < 0) {
    hook = iashim::FindHookForRequest(symbol, cuda_version, per_thread);
    if (hook >= 0) {
      iashim::Log(iashim::LogLevel::kDebug, "cuGetProcAddress(%s, %d): matched %s by name",
                  symbol, cuda_version, iashim::kHookTable[hook].symbol);
    }
  }
  if (hook < 0) return rc;
  *pfn = iashim::kHookTable[hook].hook;
  iashim::RecordLookup(path, hook, per_thread && iashim::kHookTable[hook].per_thread);
  return rc;
}

}  // namespace

IASHIM_EXPORT CUresult cuGetProcAddress(const char* symbol, void** pfn, int cuda_version,
                                        cuuint64_t flags) {
  return Lookup(iashim::LookupPath::kProcV1, symbol, pfn, cuda_version, flags, nullptr);
}

IASHIM_EXPORT CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int cuda_version,
                                           cuuint64_t flags, CUdriverProcAddressQueryResult* status) {
  return Lookup(iashim::LookupPath::kProcV2, symbol, pfn, cuda_version, flags, status);
}
