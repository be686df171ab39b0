// Small numbers for the CUDA contexts that hold this process's memory, so that
// each record of the memory ledger can name its context in 8 bits and the
// ledger can give back what a context held when the driver frees it with the
// context (cuCtxDestroy, cuDevicePrimaryCtxReset, the primary context's last
// cuDevicePrimaryCtxRelease: hooks_context.cc). Without it, a job that resets
// its device (cudaDeviceReset) and starts again would be refused memory it no
// longer holds.
//
// Lookups take no lock (an allocation asks for its context's number); a
// context's first allocation takes a mutex to be given one.
#ifndef IASHIM_CONTEXT_SLOTS_H_
#define IASHIM_CONTEXT_SLOTS_H_

#include <atomic>
#include <cstdint>
#include <mutex>

#include "libiashim/src/cuda_api.h"
#include "libiashim/src/memory_ledger.h"

namespace iashim {

class ContextSlots {
 public:
  // Numbers 1..255; MemoryLedger::kNoContext (0) for none.
  static constexpr int kSlots = 256;

  // The process's one table (never destroyed: hooks may run at exit).
  static ContextSlots& Get();

  // The number of `ctx`, given one the first time; kNoContext for a null
  // context, or when 255 contexts hold numbers (their memory is then given
  // back only by its frees, as before there were numbers).
  uint8_t SlotOf(CUcontext ctx);
  // The number `ctx` holds, or kNoContext; gives none out.
  uint8_t Find(CUcontext ctx) const;
  // Takes `ctx`'s number back, for another context to use.
  void Drop(CUcontext ctx);

  // The primary context of `device`, as cuDevicePrimaryCtxRetain returned it
  // (null if never seen): what a reset or release of the device's primary
  // context refers to.
  void NotePrimary(CUdevice device, CUcontext ctx);
  CUcontext Primary(CUdevice device) const;

 private:
  std::atomic<CUcontext> by_slot_[kSlots] = {};  // [0] unused
  std::atomic<CUcontext> primaries_[MemoryLedger::kMaxDevices] = {};
  std::mutex assign_mu_;  // serialises giving out numbers
};

}  // namespace iashim

#endif  // IASHIM_CONTEXT_SLOTS_H_
