// The table of hooked entry points (hooked_entry_points.inc) and of those the
// shim only calls (used_entry_points.inc), and the look-ups that dlsym and
// cuGetProcAddress answer from.
#ifndef IASHIM_HOOK_TABLE_H_
#define IASHIM_HOOK_TABLE_H_

#include <cstdint>

namespace iashim {

// One id per entry point: hooks first, then the entry points only called.
enum class Entry : int {
#define IASHIM_HOOK(symbol, base, since, per_thread) k_##symbol,
#include "libiashim/src/hooked_entry_points.inc"
#undef IASHIM_HOOK
  kHooksEnd,
#define IASHIM_USED(symbol) k_##symbol,
#include "libiashim/src/used_entry_points.inc"
#undef IASHIM_USED
  kEnd
};

inline constexpr int kHookCount = static_cast<int>(Entry::kHooksEnd);
inline constexpr int kEntryCount = static_cast<int>(Entry::kEnd);

struct HookEntry {
  const char* symbol;  // exported name, e.g. "cuLaunchKernel_ptsz"
  const char* base;    // name a runtime asks for, e.g. "cuLaunchKernel"
  int since;           // first CUDA version (e.g. 12000) with this variant
  bool per_thread;     // the per-thread-default-stream (_ptsz/_ptds) variant
  void* hook;          // our replacement
};

// Indexed by Entry for the hooks (0 .. kHookCount-1).
extern const HookEntry kHookTable[kHookCount];

// The symbol name of any entry (hooked or used).
const char* EntryName(int entry);

// Exact symbol name -> hook index, or -1.
int FindHookBySymbol(const char* symbol);

// The hook whose own address or whose real driver address is `address`, or -1.
int FindHookByAddress(const void* address);

// What a driver returns for cuGetProcAddress(base, cuda_version, flags),
// restricted to our hooks: the newest variant of `base` not newer than
// `cuda_version`, per-thread if asked for and one exists; -1 if none.
int FindHookForRequest(const char* base, int cuda_version, bool per_thread);

// True for the launch entry points (used to report how launches were found).
bool IsLaunchHook(int hook);

}  // namespace iashim

#endif  // IASHIM_HOOK_TABLE_H_
