#include "libiashim/src/allocation_path.h"

#include <atomic>
#include <string>

#include "common/text/text.h"
#include "libiashim/src/context_slots.h"
#include "libiashim/src/cycle_clock.h"
#include "libiashim/src/log.h"
#include "libiashim/src/real_driver.h"

namespace iashim {

int CurrentDevice() {
  auto get = IASHIM_REAL(cuCtxGetDevice);
  CUdevice dev = -1;
  if (get == nullptr || get(&dev) != CUDA_SUCCESS) return -1;
  return dev;
}

uint8_t CurrentContextSlot() {
  auto get = IASHIM_REAL(cuCtxGetCurrent);
  CUcontext ctx = nullptr;
  if (get == nullptr || get(&ctx) != CUDA_SUCCESS) return MemoryLedger::kNoContext;
  return ContextSlots::Get().SlotOf(ctx);
}

void LogRefusal(const char* call, int device, uint64_t bytes, const MemoryLedger& ledger) {
  static std::atomic<uint64_t> last_ns{0};
  static std::atomic<uint64_t> suppressed{0};
  const uint64_t now = MonotonicNs();
  uint64_t last = last_ns.load(std::memory_order_relaxed);
  if (last != 0 && now - last < 1'000'000'000ULL) {
    suppressed.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  if (!last_ns.compare_exchange_strong(last, now, std::memory_order_relaxed)) {
    suppressed.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  const uint64_t quiet = suppressed.exchange(0, std::memory_order_relaxed);
  try {  // formatting allocates; nothing may escape into the driver API
    IASHIM_WARN("%s of %s on device %d refused: %s of the %s IASHIM_MEM_LIMIT in use%s", call,
                FormatBytes(bytes).c_str(), device, FormatBytes(ledger.used(device)).c_str(),
                FormatBytes(ledger.limit()).c_str(),
                quiet ? (" (" + std::to_string(quiet) + " more refusals not shown)").c_str() : "");
  } catch (...) {
  }
}

}  // namespace iashim
