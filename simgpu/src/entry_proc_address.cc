// Entry points: cuGetProcAddress (both versions) and error names.
//
// Runtimes since CUDA 11.3 fetch every entry point through cuGetProcAddress
// with the CUDA version they were built for and a per-thread-stream flag; the
// driver answers with the newest variant of that name not newer than the
// version (cuMemAlloc -> cuMemAlloc_v2), and with the _ptsz/_ptds variant when
// the per-thread default stream is asked for. The versions are those of the
// PFN_<name>_v<version> typedefs in cudaTypedefs.h, with one exception that
// cudaTypedefs.h cannot express: CUDA 12 redefined cuGraphInstantiate as
// cuGraphInstantiateWithFlags (a `#define` in cuda.h, a new ABI), so a caller
// built for 12.0 or later asking for "cuGraphInstantiate" gets that function.
#include <cstring>
#include <string>

#include "simgpu/src/driver.h"
#include "simgpu/src/driver_symbols.h"

extern "C" __attribute__((visibility("hidden"))) int simgpu_unsupported(const char* name) {
  simgpu::LogOnce(std::string(name) + " is not supported by simgpu (returns CUDA_ERROR_NOT_SUPPORTED)");
  return CUDA_ERROR_NOT_SUPPORTED;
}

namespace {

struct Variant {
  const char* name;   // the base name a runtime asks for
  int since;          // first CUDA version with this variant
  void* legacy;       // default-stream variant
  void* per_thread;   // _ptsz/_ptds variant, if any
};

#define FN(f) reinterpret_cast<void*>(&f)

const Variant kVariants[] = {
    {"cuInit", 2000, FN(cuInit), nullptr},
    {"cuDriverGetVersion", 2020, FN(cuDriverGetVersion), nullptr},
    {"cuDeviceGet", 2000, FN(cuDeviceGet), nullptr},
    {"cuDeviceGetCount", 2000, FN(cuDeviceGetCount), nullptr},
    {"cuDeviceGetName", 2000, FN(cuDeviceGetName), nullptr},
    {"cuDeviceGetAttribute", 2000, FN(cuDeviceGetAttribute), nullptr},
    {"cuDeviceTotalMem", 3020, FN(cuDeviceTotalMem_v2), nullptr},
    {"cuDeviceGetUuid", 9020, FN(cuDeviceGetUuid), nullptr},
    {"cuDeviceGetUuid", 11040, FN(cuDeviceGetUuid_v2), nullptr},
    {"cuDevicePrimaryCtxRetain", 7000, FN(cuDevicePrimaryCtxRetain), nullptr},
    {"cuDevicePrimaryCtxRelease", 7000, FN(cuDevicePrimaryCtxRelease), nullptr},
    {"cuDevicePrimaryCtxRelease", 11000, FN(cuDevicePrimaryCtxRelease_v2), nullptr},
    {"cuDevicePrimaryCtxGetState", 7000, FN(cuDevicePrimaryCtxGetState), nullptr},
    {"cuDevicePrimaryCtxSetFlags", 7000, FN(cuDevicePrimaryCtxSetFlags), nullptr},
    {"cuDevicePrimaryCtxSetFlags", 11000, FN(cuDevicePrimaryCtxSetFlags_v2), nullptr},
    {"cuDevicePrimaryCtxReset", 7000, FN(cuDevicePrimaryCtxReset), nullptr},
    {"cuDevicePrimaryCtxReset", 11000, FN(cuDevicePrimaryCtxReset_v2), nullptr},
    {"cuCtxCreate", 3020, FN(cuCtxCreate_v2), nullptr},
    {"cuCtxCreate", 11040, FN(cuCtxCreate_v3), nullptr},
    {"cuCtxCreate", 12050, FN(cuCtxCreate_v4), nullptr},
    {"cuCtxDestroy", 4000, FN(cuCtxDestroy_v2), nullptr},
    {"cuCtxSetCurrent", 4000, FN(cuCtxSetCurrent), nullptr},
    {"cuCtxGetCurrent", 4000, FN(cuCtxGetCurrent), nullptr},
    {"cuCtxPushCurrent", 4000, FN(cuCtxPushCurrent_v2), nullptr},
    {"cuCtxPopCurrent", 4000, FN(cuCtxPopCurrent_v2), nullptr},
    {"cuCtxGetDevice", 2000, FN(cuCtxGetDevice), nullptr},
    {"cuCtxGetDevice", 13000, FN(cuCtxGetDevice_v2), nullptr},
    {"cuCtxSynchronize", 2000, FN(cuCtxSynchronize), nullptr},
    {"cuCtxSynchronize", 13000, FN(cuCtxSynchronize_v2), nullptr},
    {"cuModuleLoadData", 2000, FN(cuModuleLoadData), nullptr},
    {"cuModuleLoadDataEx", 2010, FN(cuModuleLoadDataEx), nullptr},
    {"cuModuleGetFunction", 2000, FN(cuModuleGetFunction), nullptr},
    {"cuModuleUnload", 2000, FN(cuModuleUnload), nullptr},
    {"cuFuncGetName", 12030, FN(cuFuncGetName), nullptr},
    {"cuLibraryLoadData", 12000, FN(cuLibraryLoadData), nullptr},
    {"cuLibraryLoadFromFile", 12000, FN(cuLibraryLoadFromFile), nullptr},
    {"cuLibraryUnload", 12000, FN(cuLibraryUnload), nullptr},
    {"cuLibraryGetKernel", 12000, FN(cuLibraryGetKernel), nullptr},
    {"cuKernelGetFunction", 12000, FN(cuKernelGetFunction), nullptr},
    {"cuKernelGetName", 12030, FN(cuKernelGetName), nullptr},
    {"cuKernelGetLibrary", 12050, FN(cuKernelGetLibrary), nullptr},
    {"cuLaunchKernel", 4000, FN(cuLaunchKernel), FN(cuLaunchKernel_ptsz)},
    {"cuLaunchKernelEx", 11060, FN(cuLaunchKernelEx), FN(cuLaunchKernelEx_ptsz)},
    {"cuLaunchCooperativeKernel", 9000, FN(cuLaunchCooperativeKernel),
     FN(cuLaunchCooperativeKernel_ptsz)},
    {"cuLaunchCooperativeKernelMultiDevice", 9000, FN(cuLaunchCooperativeKernelMultiDevice),
     nullptr},
    {"cuFuncSetBlockShape", 2000, FN(cuFuncSetBlockShape), nullptr},
    {"cuFuncSetSharedSize", 2000, FN(cuFuncSetSharedSize), nullptr},
    {"cuParamSetSize", 2000, FN(cuParamSetSize), nullptr},
    {"cuParamSeti", 2000, FN(cuParamSeti), nullptr},
    {"cuParamSetf", 2000, FN(cuParamSetf), nullptr},
    {"cuParamSetv", 2000, FN(cuParamSetv), nullptr},
    {"cuLaunch", 2000, FN(cuLaunch), nullptr},
    {"cuLaunchGrid", 2000, FN(cuLaunchGrid), nullptr},
    {"cuLaunchGridAsync", 2000, FN(cuLaunchGridAsync), nullptr},
    {"cuStreamCreate", 2000, FN(cuStreamCreate), nullptr},
    {"cuStreamCreateWithPriority", 5050, FN(cuStreamCreateWithPriority), nullptr},
    {"cuStreamDestroy", 4000, FN(cuStreamDestroy_v2), nullptr},
    {"cuStreamSynchronize", 2000, FN(cuStreamSynchronize), FN(cuStreamSynchronize_ptsz)},
    {"cuStreamQuery", 2000, FN(cuStreamQuery), FN(cuStreamQuery_ptsz)},
    {"cuStreamGetPriority", 5050, FN(cuStreamGetPriority), FN(cuStreamGetPriority_ptsz)},
    {"cuCtxGetStreamPriorityRange", 5050, FN(cuCtxGetStreamPriorityRange), nullptr},
    {"cuStreamBeginCapture", 10000, FN(cuStreamBeginCapture), FN(cuStreamBeginCapture_ptsz)},
    {"cuStreamBeginCapture", 10010, FN(cuStreamBeginCapture_v2), FN(cuStreamBeginCapture_v2_ptsz)},
    {"cuStreamEndCapture", 10000, FN(cuStreamEndCapture), FN(cuStreamEndCapture_ptsz)},
    {"cuStreamIsCapturing", 10000, FN(cuStreamIsCapturing), FN(cuStreamIsCapturing_ptsz)},
    {"cuStreamGetCaptureInfo", 10010, FN(cuStreamGetCaptureInfo), FN(cuStreamGetCaptureInfo_ptsz)},
    {"cuStreamGetCaptureInfo", 11030, FN(cuStreamGetCaptureInfo_v2),
     FN(cuStreamGetCaptureInfo_v2_ptsz)},
    {"cuStreamGetCaptureInfo", 12030, FN(cuStreamGetCaptureInfo_v3),
     FN(cuStreamGetCaptureInfo_v3_ptsz)},
    {"cuGraphInstantiate", 10000, FN(cuGraphInstantiate), nullptr},
    {"cuGraphInstantiate", 11000, FN(cuGraphInstantiate_v2), nullptr},
    {"cuGraphInstantiate", 12000, FN(cuGraphInstantiateWithFlags), nullptr},
    {"cuGraphInstantiateWithFlags", 11040, FN(cuGraphInstantiateWithFlags), nullptr},
    {"cuGraphInstantiateWithParams", 12000, FN(cuGraphInstantiateWithParams),
     FN(cuGraphInstantiateWithParams_ptsz)},
    {"cuGraphLaunch", 10000, FN(cuGraphLaunch), FN(cuGraphLaunch_ptsz)},
    {"cuGraphExecDestroy", 10000, FN(cuGraphExecDestroy), nullptr},
    {"cuGraphDestroy", 10000, FN(cuGraphDestroy), nullptr},
    {"cuGraphCreate", 10000, FN(cuGraphCreate), nullptr},
    {"cuGraphAddMemAllocNode", 11040, FN(cuGraphAddMemAllocNode), nullptr},
    {"cuGraphAddMemFreeNode", 11040, FN(cuGraphAddMemFreeNode), nullptr},
    {"cuGraphMemAllocNodeGetParams", 11040, FN(cuGraphMemAllocNodeGetParams), nullptr},
    {"cuGraphAddNode", 12020, FN(cuGraphAddNode), nullptr},
    {"cuGraphAddNode", 12030, FN(cuGraphAddNode_v2), nullptr},
    {"cuEventCreate", 2000, FN(cuEventCreate), nullptr},
    {"cuEventRecord", 2000, FN(cuEventRecord), FN(cuEventRecord_ptsz)},
    {"cuEventRecordWithFlags", 11010, FN(cuEventRecordWithFlags), FN(cuEventRecordWithFlags_ptsz)},
    {"cuEventQuery", 2000, FN(cuEventQuery), nullptr},
    {"cuEventSynchronize", 2000, FN(cuEventSynchronize), nullptr},
    {"cuEventElapsedTime", 2000, FN(cuEventElapsedTime), nullptr},
    {"cuEventElapsedTime", 12080, FN(cuEventElapsedTime_v2), nullptr},
    {"cuEventDestroy", 4000, FN(cuEventDestroy_v2), nullptr},
    {"cuMemAlloc", 3020, FN(cuMemAlloc_v2), nullptr},
    {"cuMemFree", 3020, FN(cuMemFree_v2), nullptr},
    {"cuMemAllocManaged", 6000, FN(cuMemAllocManaged), nullptr},
    {"cuMemAllocPitch", 3020, FN(cuMemAllocPitch_v2), nullptr},
    {"cuMemAllocAsync", 11020, FN(cuMemAllocAsync), FN(cuMemAllocAsync_ptsz)},
    {"cuMemFreeAsync", 11020, FN(cuMemFreeAsync), FN(cuMemFreeAsync_ptsz)},
    {"cuMemAllocFromPoolAsync", 11020, FN(cuMemAllocFromPoolAsync),
     FN(cuMemAllocFromPoolAsync_ptsz)},
    {"cuDeviceGetDefaultMemPool", 11020, FN(cuDeviceGetDefaultMemPool), nullptr},
    {"cuMemPoolCreate", 11020, FN(cuMemPoolCreate), nullptr},
    {"cuMemPoolDestroy", 11020, FN(cuMemPoolDestroy), nullptr},
    {"cuMemGetAllocationGranularity", 10020, FN(cuMemGetAllocationGranularity), nullptr},
    {"cuMemCreate", 10020, FN(cuMemCreate), nullptr},
    {"cuMemRelease", 10020, FN(cuMemRelease), nullptr},
    {"cuMemAddressReserve", 10020, FN(cuMemAddressReserve), nullptr},
    {"cuMemAddressFree", 10020, FN(cuMemAddressFree), nullptr},
    {"cuMemMap", 10020, FN(cuMemMap), nullptr},
    {"cuMemUnmap", 10020, FN(cuMemUnmap), nullptr},
    {"cuMemSetAccess", 10020, FN(cuMemSetAccess), nullptr},
    {"cuMemGetInfo", 3020, FN(cuMemGetInfo_v2), nullptr},
    {"cuArrayCreate", 2000, FN(cuArrayCreate), nullptr},
    {"cuArrayCreate", 3020, FN(cuArrayCreate_v2), nullptr},
    {"cuArrayGetDescriptor", 2000, FN(cuArrayGetDescriptor), nullptr},
    {"cuArrayGetDescriptor", 3020, FN(cuArrayGetDescriptor_v2), nullptr},
    {"cuArray3DCreate", 2000, FN(cuArray3DCreate), nullptr},
    {"cuArray3DCreate", 3020, FN(cuArray3DCreate_v2), nullptr},
    {"cuArray3DGetDescriptor", 2000, FN(cuArray3DGetDescriptor), nullptr},
    {"cuArray3DGetDescriptor", 3020, FN(cuArray3DGetDescriptor_v2), nullptr},
    {"cuArrayDestroy", 2000, FN(cuArrayDestroy), nullptr},
    {"cuMipmappedArrayCreate", 5000, FN(cuMipmappedArrayCreate), nullptr},
    {"cuMipmappedArrayDestroy", 5000, FN(cuMipmappedArrayDestroy), nullptr},
    {"cuMemcpyHtoD", 3020, FN(cuMemcpyHtoD_v2), FN(cuMemcpyHtoD_v2_ptds)},
    {"cuMemcpyDtoH", 3020, FN(cuMemcpyDtoH_v2), FN(cuMemcpyDtoH_v2_ptds)},
    {"cuMemcpyHtoDAsync", 3020, FN(cuMemcpyHtoDAsync_v2), FN(cuMemcpyHtoDAsync_v2_ptsz)},
    {"cuMemcpyDtoHAsync", 3020, FN(cuMemcpyDtoHAsync_v2), FN(cuMemcpyDtoHAsync_v2_ptsz)},
    {"cuGetProcAddress", 11030, FN(cuGetProcAddress), nullptr},
    {"cuGetProcAddress", 12000, FN(cuGetProcAddress_v2), nullptr},
    {"cuGetErrorName", 6000, FN(cuGetErrorName), nullptr},
    {"cuGetErrorString", 6000, FN(cuGetErrorString), nullptr},
};

#undef FN

// Per-thread variants exist since CUDA 7.0.
constexpr int kPerThreadSince = 7000;

CUresult Lookup(const char* symbol, void** pfn, int cuda_version, cuuint64_t flags,
                CUdriverProcAddressQueryResult* status) {
  auto set_status = [&](CUdriverProcAddressQueryResult s) {
    if (status != nullptr) *status = s;
  };
  if (symbol == nullptr || pfn == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *pfn = nullptr;
  const bool per_thread =
      (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) && cuda_version >= kPerThreadSince;
  const Variant* best = nullptr;
  bool known = false;
  for (const Variant& v : kVariants) {
    if (std::strcmp(v.name, symbol) != 0) continue;
    known = true;
    if (v.since <= cuda_version && (best == nullptr || v.since > best->since)) best = &v;
  }
  if (best != nullptr) {
    *pfn = per_thread && best->per_thread != nullptr ? best->per_thread : best->legacy;
    set_status(CU_GET_PROC_ADDRESS_SUCCESS);
    return CUDA_SUCCESS;
  }
  if (known) {
    set_status(CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
    return CUDA_ERROR_NOT_FOUND;
  }
  // Any other entry point cuda.h declares: a stub that reports NOT_SUPPORTED.
  for (int i = 0; i < simgpu::kDriverSymbolCount; ++i) {
    if (std::strcmp(simgpu::kDriverSymbols[i].name, symbol) == 0) {
      *pfn = simgpu::kDriverSymbols[i].address;
      set_status(CU_GET_PROC_ADDRESS_SUCCESS);
      return CUDA_SUCCESS;
    }
  }
  set_status(CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  return CUDA_ERROR_NOT_FOUND;
}

struct ErrorName {
  int value;
  const char* name;
};
const ErrorName kErrorNames[] = {
#include "simgpu/generated/error_names.inc"
};

struct ErrorText {
  CUresult value;
  const char* text;
};
const ErrorText kErrorTexts[] = {
    {CUDA_SUCCESS, "no error"},
    {CUDA_ERROR_INVALID_VALUE, "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "initialization error"},
    {CUDA_ERROR_DEINITIALIZED, "driver shutting down"},
    {CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "invalid device context"},
    {CUDA_ERROR_INVALID_HANDLE, "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "named symbol not found"},
    {CUDA_ERROR_NOT_READY, "device not ready"},
    {CUDA_ERROR_NOT_SUPPORTED, "operation not supported"},
    {CUDA_ERROR_OPERATING_SYSTEM, "OS call failed or operation not supported on this OS"},
    {CUDA_ERROR_LAUNCH_FAILED, "unspecified launch failure"},
    {CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, "too many blocks in cooperative launch"},
    {CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "operation not permitted when stream is capturing"},
    {CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
     "operation failed due to a previous error during capture"},
    {CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD,
     "attempt to terminate a thread-local capture sequence from another thread"},
    {CUDA_ERROR_CAPTURED_EVENT,
     "operation not permitted on an event last recorded in a capturing stream"},
    {CUDA_ERROR_ILLEGAL_STATE, "the operation cannot be performed in the present state"},
    {CUDA_ERROR_FILE_NOT_FOUND, "file not found"},
    {CUDA_ERROR_UNKNOWN, "unknown error"},
};

}  // namespace

SIMGPU_EXPORT CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int cuda_version,
                                           cuuint64_t flags,
                                           CUdriverProcAddressQueryResult* status) {
  return Lookup(symbol, pfn, cuda_version, flags, status);
}

SIMGPU_EXPORT CUresult cuGetProcAddress(const char* symbol, void** pfn, int cuda_version,
                                        cuuint64_t flags) {
  return Lookup(symbol, pfn, cuda_version, flags, nullptr);
}

SIMGPU_EXPORT CUresult cuGetErrorName(CUresult error, const char** str) {
  if (str == nullptr) return CUDA_ERROR_INVALID_VALUE;
  for (const ErrorName& e : kErrorNames) {
    if (e.value == static_cast<int>(error)) {
      *str = e.name;
      return CUDA_SUCCESS;
    }
  }
  *str = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}

SIMGPU_EXPORT CUresult cuGetErrorString(CUresult error, const char** str) {
  if (str == nullptr) return CUDA_ERROR_INVALID_VALUE;
  for (const ErrorText& e : kErrorTexts) {
    if (e.value == error) {
      *str = e.text;
      return CUDA_SUCCESS;
    }
  }
  // Known but without a text of its own: its name says what it is.
  return cuGetErrorName(error, str);
}
