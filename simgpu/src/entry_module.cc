// Entry points: modules and functions. A module image is simgpu's kernel
// description text (module_image.h), not a cubin.
#include <cstring>

#include "simgpu/src/driver.h"

using simgpu::Context;
using simgpu::Function;
using simgpu::Module;

SIMGPU_EXPORT CUresult cuModuleLoadData(CUmodule* module, const void* image) {
  if (module == nullptr || image == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Context* ctx = simgpu::CurrentContext();
  if (ctx == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  const char* text = static_cast<const char*>(image);
  std::vector<simgpu::KernelModel> kernels;
  std::string error;
  if (!simgpu::ParseModuleImage(std::string_view(text, strnlen(text, (1 << 20) + 1)), &kernels,
                                &error)) {
    simgpu::LogOnce("cuModuleLoadData: invalid module image: " + error);
    return CUDA_ERROR_INVALID_IMAGE;
  }
  auto* m = new Module();
  m->ctx = ctx;
  for (auto& k : kernels) {
    auto f = std::make_unique<Function>();
    f->module = m;
    f->model = std::move(k);
    m->functions.push_back(std::move(f));
  }
  *module = reinterpret_cast<CUmodule>(m);
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int,
                                          CUjit_option*, void**) {
  return cuModuleLoadData(module, image);
}

SIMGPU_EXPORT CUresult cuModuleGetFunction(CUfunction* hfunc, CUmodule hmod, const char* name) {
  if (hfunc == nullptr || name == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Module* m = simgpu::AsModule(hmod);
  if (m == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  simgpu::Function* f = simgpu::FindFunction(m->functions, name);
  if (f == nullptr) return CUDA_ERROR_NOT_FOUND;
  *hfunc = reinterpret_cast<CUfunction>(f);
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuModuleUnload(CUmodule hmod) {
  Module* m = simgpu::AsModule(hmod);
  if (m == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  for (auto& f : m->functions) f->magic = 0;
  m->magic = 0;
  delete m;
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuFuncGetName(const char** name, CUfunction hfunc) {
  if (name == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Function* f = simgpu::AsFunction(hfunc);
  if (f == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  *name = f->model.name.c_str();
  return CUDA_SUCCESS;
}
