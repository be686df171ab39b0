#include "libiashim/src/real_driver.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#include "libiashim/src/cuda_api.h"

namespace iashim {

std::atomic<void*> g_real_entries[kEntryCount];

namespace {

std::atomic<void*> g_driver_handle{nullptr};

// Our own address, to refuse a "real driver" that is this library.
void* SelfAddress() { return reinterpret_cast<void*>(&OpenRealDriver); }

}  // namespace

bool OpenRealDriver(const std::string& path, std::string* error) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    *error = "cannot load the real driver " + path + ": " + (why ? why : "unknown error");
    return false;
  }
  DlsymFunction sym = RealDlsym();
  if (sym == nullptr) {
    *error = "cannot find glibc's dlsym";
    return false;
  }
  Dl_info self{}, other{};
  void* probe = sym(handle, "cuGetProcAddress_v2");
  if (probe != nullptr && dladdr(probe, &other) != 0 && dladdr(SelfAddress(), &self) != 0 &&
      other.dli_fbase == self.dli_fbase) {
    *error = path + " is libiashim itself, not a CUDA driver";
    return false;
  }
  g_driver_handle.store(handle, std::memory_order_release);
  for (int i = 0; i < kEntryCount; ++i) {
    if (i == kHookCount) continue;
    g_real_entries[i].store(sym(handle, EntryName(i)), std::memory_order_relaxed);
  }
  return true;
}

void* ResolveRealEntry(Entry entry) {
  const int i = static_cast<int>(entry);
  DlsymFunction sym = RealDlsym();
  if (sym == nullptr) return nullptr;
  void* handle = g_driver_handle.load(std::memory_order_acquire);
  if (handle == nullptr) {
    // Before initialisation opened it (a hook reached during initialisation):
    // the driver the program itself loaded, else the next definition.
    const char* path = std::getenv("IASHIM_REAL_LIBCUDA");
    handle = dlopen(path != nullptr && *path != '\0' ? path : "libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  }
  void* p = sym(handle != nullptr ? handle : RTLD_NEXT, EntryName(i));
  if (p != nullptr) g_real_entries[i].store(p, std::memory_order_relaxed);
  return p;
}

}  // namespace iashim
