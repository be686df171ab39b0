// Our dlsym: a program that dlopen()s libcuda and asks dlsym for a hooked
// entry point gets our hook; every other look-up is glibc's.
//
// dlsym(RTLD_NEXT, ...) is relative to its caller, and glibc would take this
// file as the caller. So for RTLD_NEXT we search the objects loaded after the
// real caller ourselves, in load order.
#include <dlfcn.h>
#include <link.h>

#include "hook_table.h"
#include "real_driver.h"
#include "runtime.h"

namespace {

void* NextAfter(const void* caller, const char* name) {
  iashim::DlsymFunction real = iashim::RealDlsym();
  Dl_info info;
  link_map* self = nullptr;
  if (dladdr1(caller, &info, reinterpret_cast<void**>(&self), RTLD_DL_LINKMAP) == 0 ||
      self == nullptr) {
    return real(RTLD_NEXT, name);
  }
  for (link_map* map = self->l_next; map != nullptr; map = map->l_next) {
    // A proper handle for each loaded object (the vDSO has none).
    if (map->l_name == nullptr || map->l_name[0] == '\0') continue;
    void* handle = dlopen(map->l_name, RTLD_LAZY | RTLD_NOLOAD);
    if (handle == nullptr) continue;
    void* p = real(handle, name);
    dlclose(handle);
    if (p != nullptr) return p;
  }
  return nullptr;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) void* dlsym(void* handle, const char* name) {
  iashim::DlsymFunction real = iashim::RealDlsym();
  if (real == nullptr) return nullptr;
  if (handle == RTLD_NEXT) return NextAfter(__builtin_return_address(0), name);
  void* p = real(handle, name);
  if (p == nullptr) return nullptr;
  const int hook = iashim::FindHookBySymbol(name);
  if (hook < 0) return p;
  iashim::RecordLookup(iashim::LookupPath::kDlsym, hook, iashim::kHookTable[hook].per_thread);
  return iashim::kHookTable[hook].hook;
}
