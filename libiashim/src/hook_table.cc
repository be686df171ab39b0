#include "libiashim/src/hook_table.h"

#include <cstring>

#include "libiashim/src/cuda_api.h"
#include "libiashim/src/real_driver.h"

namespace iashim {

const HookEntry kHookTable[kHookCount] = {
#define IASHIM_HOOK(symbol, base, since, per_thread) \
  {#symbol, #base, since, per_thread != 0, reinterpret_cast<void*>(&::symbol)},
#include "libiashim/src/hooked_entry_points.inc"
#undef IASHIM_HOOK
};

namespace {
const char* const kUsedNames[] = {
#define IASHIM_USED(symbol) #symbol,
#include "libiashim/src/used_entry_points.inc"
#undef IASHIM_USED
};
static_assert(sizeof(kUsedNames) / sizeof(kUsedNames[0]) == kEntryCount - kHookCount - 1);
}  // namespace

const char* EntryName(int entry) {
  if (entry >= 0 && entry < kHookCount) return kHookTable[entry].symbol;
  if (entry > kHookCount && entry < kEntryCount) return kUsedNames[entry - kHookCount - 1];
  return "?";
}

int FindHookBySymbol(const char* symbol) {
  if (symbol == nullptr || symbol[0] != 'c' || symbol[1] != 'u') return -1;
  for (int i = 0; i < kHookCount; ++i) {
    if (std::strcmp(kHookTable[i].symbol, symbol) == 0) return i;
  }
  return -1;
}

int FindHookByAddress(const void* address) {
  if (address == nullptr) return -1;
  for (int i = 0; i < kHookCount; ++i) {
    if (kHookTable[i].hook == address || RealEntry(static_cast<Entry>(i)) == address) return i;
  }
  return -1;
}

int FindHookForRequest(const char* base, int cuda_version, bool per_thread) {
  if (base == nullptr) return -1;
  int best = -1;
  for (int i = 0; i < kHookCount; ++i) {
    const HookEntry& e = kHookTable[i];
    if (e.per_thread || e.since > cuda_version || std::strcmp(e.base, base) != 0) continue;
    if (best < 0 || e.since > kHookTable[best].since) best = i;
  }
  if (best < 0 || !per_thread) return best;
  // The per-thread variant of the chosen one, when the driver has one.
  for (int i = 0; i < kHookCount; ++i) {
    const HookEntry& e = kHookTable[i];
    if (e.per_thread && e.since <= cuda_version && std::strcmp(e.base, base) == 0) return i;
  }
  return best;
}

bool IsLaunchHook(int hook) {
  switch (static_cast<Entry>(hook)) {
    case Entry::k_cuLaunchKernel:
    case Entry::k_cuLaunchKernel_ptsz:
    case Entry::k_cuLaunchKernelEx:
    case Entry::k_cuLaunchKernelEx_ptsz:
    case Entry::k_cuLaunchCooperativeKernel:
    case Entry::k_cuLaunchCooperativeKernel_ptsz:
    case Entry::k_cuGraphLaunch:
    case Entry::k_cuGraphLaunch_ptsz:
    case Entry::k_cuLaunch:
    case Entry::k_cuLaunchGrid:
    case Entry::k_cuLaunchGridAsync:
    case Entry::k_cuLaunchCooperativeKernelMultiDevice:
      return true;
    default:
      return false;
  }
}

}  // namespace iashim
