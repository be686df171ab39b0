// Our dlsym: a program that dlopen()s libcuda and asks dlsym for a hooked
// entry point gets our hook; every other look-up is glibc's.
//
// dlsym(RTLD_NEXT, ...) is relative to its caller, and glibc would take this
// file as the caller. So for RTLD_NEXT we search the objects loaded after the
// real caller ourselves, in load order.
//
// Sanitizer runtimes call dlsym(RTLD_NEXT, ...) while they initialise, before
// instrumented code may run: this file is built without instrumentation (see
// CMakeLists.txt) and the RTLD_NEXT path calls nothing outside it but libc.
#include <dlfcn.h>
#include <link.h>

#include <atomic>

#include "libiashim/src/hook_table.h"
#include "libiashim/src/real_driver.h"
#include "libiashim/src/runtime.h"

namespace iashim {

DlsymFunction RealDlsym() {
  // No function-local static: its guard is intercepted by the sanitizers.
  static std::atomic<DlsymFunction> real{nullptr};
  DlsymFunction fn = real.load(std::memory_order_acquire);
  if (fn != nullptr) return fn;
  // The versioned name of dlsym moved from libdl (2.2.5) into libc (2.34).
  for (const char* version : {"GLIBC_2.34", "GLIBC_2.2.5"}) {
    if (void* p = dlvsym(RTLD_NEXT, "dlsym", version)) {
      fn = reinterpret_cast<DlsymFunction>(p);
      break;
    }
  }
  real.store(fn, std::memory_order_release);
  return fn;
}

}  // namespace iashim

namespace {

// Set by our constructor. Before it, the only callers are runtimes loaded
// ahead of us (sanitizers) looking for libc, which comes after us anyway.
std::atomic<bool> g_constructed{false};
__attribute__((constructor)) void MarkConstructed() { g_constructed.store(true); }

void* NextAfter(const void* caller, const char* name) {
  iashim::DlsymFunction real = iashim::RealDlsym();
  Dl_info info;
  link_map* self = nullptr;
  if (!g_constructed.load(std::memory_order_relaxed) ||
      dladdr1(caller, &info, reinterpret_cast<void**>(&self), RTLD_DL_LINKMAP) == 0 ||
      self == nullptr) {
    return real(RTLD_NEXT, name);
  }
  for (link_map* map = self->l_next; map != nullptr; map = map->l_next) {
    // A handle that dlsym can search (a startup link_map has no search list
    // of its own); the vDSO and the program have no path to open.
    if (map->l_name == nullptr || map->l_name[0] != '/') continue;
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
  // Only driver names can be hooked; everything else returns without
  // touching instrumented code (sanitizer runtimes call this early).
  if (p == nullptr || name[0] != 'c' || name[1] != 'u') return p;
  const int hook = iashim::FindHookBySymbol(name);
  if (hook < 0) return p;
  iashim::RecordLookup(iashim::LookupPath::kDlsym, hook, iashim::kHookTable[hook].per_thread);
  return iashim::kHookTable[hook].hook;
}
