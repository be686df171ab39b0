// Entry points: libraries, CUDA 12's context-independent loading. A library is
// loaded from the same kernel description text as a module (module_image.h)
// and needs no current context.
//
// A CUkernel is the library's Function object itself, so cuKernelGetFunction
// returns the kernel's own handle and a CUkernel cast to CUfunction launches
// (entry_launch.cc) and names (cuFuncGetName) like any function.
#include <cstring>
#include <fstream>

#include "simgpu/src/driver.h"

using simgpu::Function;
using simgpu::Library;

namespace {

// The image cap of module_image.h, plus one byte to detect a longer image.
constexpr size_t kMaxScan = (1 << 20) + 1;

CUresult CheckOptions(unsigned n, const void* keys, void* const* values) {
  return n > 0 && (keys == nullptr || values == nullptr) ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

CUresult Load(CUlibrary* out, std::string_view image, const char* caller) {
  std::vector<simgpu::KernelModel> kernels;
  std::string error;
  if (!simgpu::ParseModuleImage(image, &kernels, &error)) {
    simgpu::LogOnce(std::string(caller) + ": invalid library image: " + error);
    return CUDA_ERROR_INVALID_IMAGE;
  }
  auto* lib = new Library();
  for (auto& k : kernels) {
    auto f = std::make_unique<Function>();
    f->library = lib;
    f->model = std::move(k);
    lib->functions.push_back(std::move(f));
  }
  *out = reinterpret_cast<CUlibrary>(lib);
  return CUDA_SUCCESS;
}

}  // namespace

SIMGPU_EXPORT CUresult cuLibraryLoadData(CUlibrary* library, const void* code,
                                         CUjit_option* jit_options, void** jit_values,
                                         unsigned int num_jit_options,
                                         CUlibraryOption* library_options, void** library_values,
                                         unsigned int num_library_options) {
  if (!simgpu::Driver::Get().initialized()) return CUDA_ERROR_NOT_INITIALIZED;
  if (library == nullptr || code == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CheckOptions(num_jit_options, jit_options, jit_values) != CUDA_SUCCESS ||
      CheckOptions(num_library_options, library_options, library_values) != CUDA_SUCCESS)
    return CUDA_ERROR_INVALID_VALUE;
  const char* text = static_cast<const char*>(code);
  return Load(library, std::string_view(text, strnlen(text, kMaxScan)), "cuLibraryLoadData");
}

SIMGPU_EXPORT CUresult cuLibraryLoadFromFile(CUlibrary* library, const char* file_name,
                                             CUjit_option* jit_options, void** jit_values,
                                             unsigned int num_jit_options,
                                             CUlibraryOption* library_options,
                                             void** library_values,
                                             unsigned int num_library_options) {
  if (!simgpu::Driver::Get().initialized()) return CUDA_ERROR_NOT_INITIALIZED;
  if (library == nullptr || file_name == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CheckOptions(num_jit_options, jit_options, jit_values) != CUDA_SUCCESS ||
      CheckOptions(num_library_options, library_options, library_values) != CUDA_SUCCESS)
    return CUDA_ERROR_INVALID_VALUE;
  std::ifstream in(file_name, std::ios::binary);
  if (!in) return CUDA_ERROR_FILE_NOT_FOUND;
  std::string image(kMaxScan, '\0');
  in.read(image.data(), static_cast<std::streamsize>(image.size()));
  image.resize(static_cast<size_t>(in.gcount()));
  return Load(library, image, "cuLibraryLoadFromFile");
}

SIMGPU_EXPORT CUresult cuLibraryUnload(CUlibrary library) {
  Library* lib = simgpu::AsLibrary(library);
  if (lib == nullptr) return CUDA_ERROR_INVALID_VALUE;
  for (auto& f : lib->functions) f->magic = 0;
  lib->magic = 0;
  delete lib;
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuLibraryGetKernel(CUkernel* kernel, CUlibrary library, const char* name) {
  if (kernel == nullptr || name == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Library* lib = simgpu::AsLibrary(library);
  if (lib == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  Function* f = simgpu::FindFunction(lib->functions, name);
  if (f == nullptr) return CUDA_ERROR_NOT_FOUND;
  *kernel = reinterpret_cast<CUkernel>(f);
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuKernelGetFunction(CUfunction* func, CUkernel kernel) {
  if (func == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Function* f = simgpu::AsKernel(kernel);
  if (f == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  // The function is the kernel "in the current context", so there must be one.
  if (simgpu::CurrentContext() == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  *func = reinterpret_cast<CUfunction>(f);
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuKernelGetName(const char** name, CUkernel kernel) {
  Function* f = simgpu::AsKernel(kernel);
  if (name == nullptr || f == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *name = f->model.name.c_str();
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuKernelGetLibrary(CUlibrary* library, CUkernel kernel) {
  if (library == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Function* f = simgpu::AsKernel(kernel);
  if (f == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  *library = reinterpret_cast<CUlibrary>(f->library);
  return CUDA_SUCCESS;
}
