// A "null" CUDA driver (libcuda.so.1) for shim_overhead_bench: every entry
// point the shim calls on the launch and allocation paths, each doing the
// least a driver could. Timing a call through libiashim against a direct call
// into this library then measures the shim's own cost and nothing of a
// driver's (simgpu's launch alone costs microseconds and varies with load).
//
// Events are trivial but working, so that the shim's sampled path (1 in N
// launches timed with an event pair) runs as it would with telemetry on.
#define __CUDA_API_VERSION_INTERNAL 1  // versioned names (_v2, _ptsz) declared as-is
#include <cuda.h>

#include <atomic>
#include <cstdint>
#include <cstring>

#define NULLDRV_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

// Any distinct non-null values do: nothing dereferences them.
alignas(64) char g_context_storage[64];
alignas(64) char g_event_storage[4096];
std::atomic<uint32_t> g_next_event{0};

// Device addresses: a bump pointer, 2 MiB aligned like the real allocator's
// large pages. Every allocation gets a fresh address, which is the worst case
// for the shim's pointer table (no reuse of a warm slot).
constexpr uint64_t kFirstAddress = uint64_t(1) << 40;
constexpr uint64_t kAlign = uint64_t(2) << 20;
std::atomic<uint64_t> g_next_address{kFirstAddress};

const char kKernelName[] = "null_kernel";

}  // namespace

NULLDRV_EXPORT CUresult cuInit(unsigned int) { return CUDA_SUCCESS; }

NULLDRV_EXPORT CUresult cuDriverGetVersion(int* version) {
  if (version == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *version = CUDA_VERSION;
  return CUDA_SUCCESS;
}

NULLDRV_EXPORT CUresult cuDeviceGet(CUdevice* dev, int ordinal) {
  if (dev == nullptr || ordinal != 0) return CUDA_ERROR_INVALID_VALUE;
  *dev = 0;
  return CUDA_SUCCESS;
}

NULLDRV_EXPORT CUresult cuDeviceGetCount(int* count) {
  if (count == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *count = 1;
  return CUDA_SUCCESS;
}

// One context, always current: the shim's sampled path needs a non-null one.
NULLDRV_EXPORT CUresult cuCtxGetCurrent(CUcontext* ctx) {
  if (ctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *ctx = reinterpret_cast<CUcontext>(g_context_storage);
  return CUDA_SUCCESS;
}

NULLDRV_EXPORT CUresult cuCtxSetCurrent(CUcontext) { return CUDA_SUCCESS; }

NULLDRV_EXPORT CUresult cuCtxGetDevice(CUdevice* dev) {
  if (dev == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *dev = 0;
  return CUDA_SUCCESS;
}

NULLDRV_EXPORT CUresult cuCtxSynchronize() { return CUDA_SUCCESS; }
NULLDRV_EXPORT CUresult cuStreamSynchronize(CUstream) { return CUDA_SUCCESS; }
NULLDRV_EXPORT CUresult cuStreamSynchronize_ptsz(CUstream) { return CUDA_SUCCESS; }

// Launches: a handle check, as any driver makes, and nothing else.
NULLDRV_EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned, unsigned, unsigned, unsigned,
                                       unsigned, unsigned, unsigned, CUstream, void**, void**) {
  return f != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

NULLDRV_EXPORT CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned, unsigned, unsigned, unsigned,
                                            unsigned, unsigned, unsigned, CUstream, void**,
                                            void**) {
  return f != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

NULLDRV_EXPORT CUresult cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f, void**,
                                         void**) {
  return config != nullptr && f != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

NULLDRV_EXPORT CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig* config, CUfunction f, void**,
                                              void**) {
  return config != nullptr && f != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

NULLDRV_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr* dptr, size_t bytes) {
  if (dptr == nullptr || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  const uint64_t size = (uint64_t(bytes) + kAlign - 1) / kAlign * kAlign;
  *dptr = g_next_address.fetch_add(size, std::memory_order_relaxed);
  return CUDA_SUCCESS;
}

NULLDRV_EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr) {
  return dptr != 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

// Events: handles from a fixed pool (reused cyclically; the shim keeps at most
// a few dozen per thread), always complete, 1 µs apart.
NULLDRV_EXPORT CUresult cuEventCreate(CUevent* event, unsigned int) {
  if (event == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const uint32_t i = g_next_event.fetch_add(1, std::memory_order_relaxed) % sizeof g_event_storage;
  *event = reinterpret_cast<CUevent>(g_event_storage + i);
  return CUDA_SUCCESS;
}

NULLDRV_EXPORT CUresult cuEventDestroy_v2(CUevent) { return CUDA_SUCCESS; }
NULLDRV_EXPORT CUresult cuEventRecord(CUevent e, CUstream) {
  return e != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}
NULLDRV_EXPORT CUresult cuEventRecord_ptsz(CUevent e, CUstream) {
  return e != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}
NULLDRV_EXPORT CUresult cuEventQuery(CUevent) { return CUDA_SUCCESS; }
NULLDRV_EXPORT CUresult cuEventSynchronize(CUevent) { return CUDA_SUCCESS; }

NULLDRV_EXPORT CUresult cuEventElapsedTime(float* ms, CUevent, CUevent) {
  if (ms == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *ms = 0.001f;
  return CUDA_SUCCESS;
}

NULLDRV_EXPORT CUresult cuEventElapsedTime_v2(float* ms, CUevent, CUevent) {
  if (ms == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *ms = 0.001f;
  return CUDA_SUCCESS;
}

NULLDRV_EXPORT CUresult cuStreamIsCapturing(CUstream, CUstreamCaptureStatus* status) {
  if (status == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *status = CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}

NULLDRV_EXPORT CUresult cuStreamIsCapturing_ptsz(CUstream, CUstreamCaptureStatus* status) {
  if (status == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *status = CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}

// Names, so the shim's background thread can label the fake kernels.
NULLDRV_EXPORT CUresult cuFuncGetName(const char** name, CUfunction f) {
  if (name == nullptr || f == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *name = kKernelName;
  return CUDA_SUCCESS;
}

NULLDRV_EXPORT CUresult cuKernelGetName(const char** name, CUkernel k) {
  if (name == nullptr || k == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *name = kKernelName;
  return CUDA_SUCCESS;
}

// Only what a runtime would fetch for the paths above; the shim itself
// resolves entries with dlsym and probes this one to tell a driver from itself.
NULLDRV_EXPORT CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int, cuuint64_t flags,
                                            CUdriverProcAddressQueryResult* status) {
  if (symbol == nullptr || pfn == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const bool per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
  struct Entry {
    const char* name;
    void* legacy;
    void* per_thread;
  };
  static const Entry kEntries[] = {
      {"cuInit", reinterpret_cast<void*>(&cuInit), nullptr},
      {"cuDriverGetVersion", reinterpret_cast<void*>(&cuDriverGetVersion), nullptr},
      {"cuCtxGetCurrent", reinterpret_cast<void*>(&cuCtxGetCurrent), nullptr},
      {"cuCtxGetDevice", reinterpret_cast<void*>(&cuCtxGetDevice), nullptr},
      {"cuLaunchKernel", reinterpret_cast<void*>(&cuLaunchKernel),
       reinterpret_cast<void*>(&cuLaunchKernel_ptsz)},
      {"cuLaunchKernelEx", reinterpret_cast<void*>(&cuLaunchKernelEx),
       reinterpret_cast<void*>(&cuLaunchKernelEx_ptsz)},
      {"cuMemAlloc", reinterpret_cast<void*>(&cuMemAlloc_v2), nullptr},
      {"cuMemFree", reinterpret_cast<void*>(&cuMemFree_v2), nullptr},
  };
  for (const Entry& e : kEntries) {
    if (std::strcmp(e.name, symbol) != 0) continue;
    *pfn = per_thread && e.per_thread != nullptr ? e.per_thread : e.legacy;
    if (status != nullptr) *status = CU_GET_PROC_ADDRESS_SUCCESS;
    return CUDA_SUCCESS;
  }
  *pfn = nullptr;
  if (status != nullptr) *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return CUDA_ERROR_NOT_FOUND;
}
