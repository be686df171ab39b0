// The real driver: opened once, every hooked and used entry point resolved
// from it once, and the real dlsym (ours replaces the libc one).
#ifndef IASHIM_REAL_DRIVER_H_
#define IASHIM_REAL_DRIVER_H_

#include <atomic>
#include <string>

#include "libiashim/src/hook_table.h"

namespace iashim {

using DlsymFunction = void* (*)(void* handle, const char* name);

// glibc's dlsym, found with dlvsym(RTLD_NEXT, ...) so our override is skipped
// (defined in dlsym_override.cc).
DlsymFunction RealDlsym();

// dlopen()s `path` (normally "libcuda.so.1") and resolves every entry. Returns
// false, with a reason, if the library cannot be opened or is this shim.
bool OpenRealDriver(const std::string& path, std::string* error);

extern std::atomic<void*> g_real_entries[kEntryCount];

// Looked up on first use when OpenRealDriver has not run (a hook called while
// the shim initialises) or the entry was missing then.
void* ResolveRealEntry(Entry entry);

inline void* RealEntry(Entry entry) {
  void* p = g_real_entries[static_cast<int>(entry)].load(std::memory_order_relaxed);
  return p != nullptr ? p : ResolveRealEntry(entry);
}

}  // namespace iashim

// The real driver's `symbol`, typed as cuda.h declares it; null if the driver
// lacks it.
#define IASHIM_REAL(symbol) \
  (reinterpret_cast<decltype(&::symbol)>(::iashim::RealEntry(::iashim::Entry::k_##symbol)))

#endif  // IASHIM_REAL_DRIVER_H_
