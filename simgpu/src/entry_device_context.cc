// Entry points: initialisation, devices, contexts.
#include <cstring>

#include "simgpu/src/config_parse.h"
#include "simgpu/src/driver.h"

using simgpu::Context;
using simgpu::Driver;

using simgpu::CheckDevice;

namespace {

// Compute capability from the device name, defaulting to a V100's 7.0.
void ComputeCapability(const char* name, int* major, int* minor) {
  struct Known {
    const char* tag;
    int major, minor;
  };
  static constexpr Known kKnown[] = {{"H200", 9, 0}, {"H100", 9, 0}, {"A100", 8, 0},
                                     {"A10", 8, 6},  {"T4", 7, 5},   {"P100", 6, 0},
                                     {"K80", 3, 7}};
  for (const Known& k : kKnown) {
    if (std::strstr(name, k.tag) != nullptr) {
      *major = k.major;
      *minor = k.minor;
      return;
    }
  }
  *major = 7;
  *minor = 0;
}

CUresult CreateContext(CUcontext* pctx, unsigned flags, CUdevice dev) {
  if (pctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult rc = CheckDevice(dev); rc != CUDA_SUCCESS) return rc;
  CUresult rc;
  Context* ctx = Driver::Get().NewContext(dev, flags, &rc);
  if (ctx == nullptr) return rc;
  simgpu::ContextStack().push_back(ctx);
  *pctx = reinterpret_cast<CUcontext>(ctx);
  return CUDA_SUCCESS;
}

}  // namespace

SIMGPU_EXPORT CUresult cuInit(unsigned int flags) {
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  return Driver::Get().Init();
}

SIMGPU_EXPORT CUresult cuDriverGetVersion(int* version) {
  if (version == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *version = CUDA_VERSION;
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuDeviceGetCount(int* count) {
  if (count == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Driver& d = Driver::Get();
  if (!d.initialized()) {
    if (d.init_result() == CUDA_ERROR_NO_DEVICE) {
      *count = 0;
      return CUDA_SUCCESS;
    }
    return CUDA_ERROR_NOT_INITIALIZED;
  }
  *count = d.visible_count();
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult rc = CheckDevice(ordinal); rc != CUDA_SUCCESS) return rc;
  *device = ordinal;
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuDeviceGetName(char* name, int len, CUdevice dev) {
  if (name == nullptr || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult rc = CheckDevice(dev); rc != CUDA_SUCCESS) return rc;
  std::strncpy(name, Driver::Get().spec(dev).name, static_cast<size_t>(len) - 1);
  name[len - 1] = '\0';
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice dev) {
  if (bytes == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult rc = CheckDevice(dev); rc != CUDA_SUCCESS) return rc;
  *bytes = Driver::Get().spec(dev).memory_bytes;
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuDeviceGetUuid_v2(CUuuid* uuid, CUdevice dev) {
  if (uuid == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult rc = CheckDevice(dev); rc != CUDA_SUCCESS) return rc;
  std::memcpy(uuid->bytes, Driver::Get().spec(dev).uuid, 16);
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuDeviceGetUuid(CUuuid* uuid, CUdevice dev) {
  return cuDeviceGetUuid_v2(uuid, dev);
}

SIMGPU_EXPORT CUresult cuDeviceGetAttribute(int* value, CUdevice_attribute attrib, CUdevice dev) {
  if (value == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult rc = CheckDevice(dev); rc != CUDA_SUCCESS) return rc;
  if (attrib <= 0 || attrib >= CU_DEVICE_ATTRIBUTE_MAX) return CUDA_ERROR_INVALID_VALUE;
  const simgpu::DeviceSpec& spec = Driver::Get().spec(dev);
  int major, minor;
  ComputeCapability(spec.name, &major, &minor);
  switch (attrib) {
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = spec.sm_count; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = major; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = minor; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: *value = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: *value = 64; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *value = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: *value = 65535; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *value = 32; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *value = 48 * 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: *value = 65536; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: *value = 2048; break;
    // The residency bound of cooperative launches (entry_launch.cc).
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: *value = 32; break;
    case CU_DEVICE_ATTRIBUTE_MAX_PITCH: *value = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT: *value = 32; break;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: *value = 1530000; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: *value = 877000; break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: *value = 4096; break;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS:
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING:
    case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY:
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: *value = 2; break;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: *value = dev + 1; break;
    default: *value = 0; break;  // not modelled
  }
  return CUDA_SUCCESS;
}

// ---- Primary contexts ------------------------------------------------------

SIMGPU_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext* pctx, CUdevice dev) {
  if (pctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult rc = CheckDevice(dev); rc != CUDA_SUCCESS) return rc;
  CUresult rc;
  Context* ctx = Driver::Get().Primary(dev, &rc);
  if (ctx == nullptr) return rc;
  Driver::Get().AdjustPrimaryRefs(dev, +1);
  *pctx = reinterpret_cast<CUcontext>(ctx);
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
  if (CUresult rc = CheckDevice(dev); rc != CUDA_SUCCESS) return rc;
  if (Driver::Get().primary_refs(dev) == 0) return CUDA_ERROR_INVALID_CONTEXT;
  Driver::Get().AdjustPrimaryRefs(dev, -1);
  // The last release destroys the primary context: its memory and streams go
  // with it (Driver::ResetPrimary).
  if (Driver::Get().primary_refs(dev) == 0) {
    CUresult rc;
    if (Context* ctx = Driver::Get().Primary(dev, &rc)) Driver::Get().ResetPrimary(ctx);
  }
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice dev) {
  return cuDevicePrimaryCtxRelease_v2(dev);
}

SIMGPU_EXPORT CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int* flags, int* active) {
  if (flags == nullptr || active == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult rc = CheckDevice(dev); rc != CUDA_SUCCESS) return rc;
  *flags = Driver::Get().primary_flags(dev);
  *active = Driver::Get().primary_refs(dev) > 0;
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags) {
  if (CUresult rc = CheckDevice(dev); rc != CUDA_SUCCESS) return rc;
  Driver::Get().set_primary_flags(dev, flags);
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags) {
  return cuDevicePrimaryCtxSetFlags_v2(dev, flags);
}

SIMGPU_EXPORT CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev) {
  if (CUresult rc = CheckDevice(dev); rc != CUDA_SUCCESS) return rc;
  CUresult rc;
  Context* ctx = Driver::Get().Primary(dev, &rc);
  // "Destroys all allocations and resets all state on the primary context":
  // the allocations and the streams go (modules simgpu keeps: see ResetPrimary).
  if (ctx != nullptr) Driver::Get().ResetPrimary(ctx);
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuDevicePrimaryCtxReset(CUdevice dev) { return cuDevicePrimaryCtxReset_v2(dev); }

// ---- Contexts --------------------------------------------------------------

SIMGPU_EXPORT CUresult cuCtxCreate_v2(CUcontext* pctx, unsigned int flags, CUdevice dev) {
  return CreateContext(pctx, flags, dev);
}

SIMGPU_EXPORT CUresult cuCtxCreate_v3(CUcontext* pctx, CUexecAffinityParam*, int, unsigned int flags,
                                      CUdevice dev) {
  return CreateContext(pctx, flags, dev);
}

SIMGPU_EXPORT CUresult cuCtxCreate_v4(CUcontext* pctx, CUctxCreateParams*, unsigned int flags,
                                      CUdevice dev) {
  return CreateContext(pctx, flags, dev);
}

SIMGPU_EXPORT CUresult cuCtxDestroy_v2(CUcontext c) {
  Context* ctx = simgpu::AsContext(c);
  if (ctx == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  if (ctx->primary) return CUDA_ERROR_INVALID_CONTEXT;
  auto& stack = simgpu::ContextStack();
  std::erase(stack, ctx);
  Driver::Get().DestroyContext(ctx);
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuCtxSetCurrent(CUcontext c) {
  if (!Driver::Get().initialized()) return CUDA_ERROR_NOT_INITIALIZED;
  if (c != nullptr && simgpu::AsContext(c) == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  simgpu::SetCurrentContext(simgpu::AsContext(c));
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuCtxGetCurrent(CUcontext* pctx) {
  if (pctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (!Driver::Get().initialized()) return CUDA_ERROR_NOT_INITIALIZED;
  *pctx = reinterpret_cast<CUcontext>(simgpu::CurrentContext());
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuCtxPushCurrent_v2(CUcontext c) {
  Context* ctx = simgpu::AsContext(c);
  if (ctx == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  simgpu::ContextStack().push_back(ctx);
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuCtxPopCurrent_v2(CUcontext* pctx) {
  auto& stack = simgpu::ContextStack();
  if (stack.empty()) return CUDA_ERROR_INVALID_CONTEXT;
  if (pctx != nullptr) *pctx = reinterpret_cast<CUcontext>(stack.back());
  stack.pop_back();
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuCtxGetDevice(CUdevice* device) {
  if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Context* ctx = simgpu::CurrentContext();
  if (ctx == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  *device = ctx->ordinal;
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuCtxSynchronize() {
  Context* ctx = simgpu::CurrentContext();
  if (ctx == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  if (CUresult rc = simgpu::RejectIfContextCapturing(ctx); rc != CUDA_SUCCESS) return rc;
  simgpu::SyncContext(ctx);
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuCtxGetDevice_v2(CUdevice* device, CUcontext c) {
  if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Context* ctx = c == nullptr ? simgpu::CurrentContext() : simgpu::AsContext(c);
  if (ctx == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  *device = ctx->ordinal;
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuCtxSynchronize_v2(CUcontext c) {
  Context* ctx = c == nullptr ? simgpu::CurrentContext() : simgpu::AsContext(c);
  if (ctx == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  if (CUresult rc = simgpu::RejectIfContextCapturing(ctx); rc != CUDA_SUCCESS) return rc;
  simgpu::SyncContext(ctx);
  return CUDA_SUCCESS;
}
