// What the shim does with a message from the coordinator
// (libiashim/src/inbound_message.h, as Transport::Receive calls it): verify,
// dispatch, and what the shim's handlers do with a Budget (BudgetFromWire:
// a budget it accepts must be in range) or an Advice (its text made printable).
#include <cstdint>
#include <cstring>
#include <vector>

#include "common/text/text.h"
#include "libiashim/src/budget.h"
#include "libiashim/src/inbound_message.h"
#include "schemas/telemetry_generated.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iashim;
  constexpr uint64_t kNow = 5'000'000'000;
  // The aligned copy Transport::Receive makes of a ZeroMQ message.
  std::vector<uint64_t> words((size + 7) / 8);
  if (size > 0) std::memcpy(words.data(), data, size);
  const auto* aligned = reinterpret_cast<const uint8_t*>(words.data());
  DispatchInbound(
      aligned, size,
      [](const wire::Budget& message) {
        std::string error;
        const std::optional<Budget> budget = BudgetFromWire(message, kNow, &error);
        if (!budget.has_value()) {
          if (error.empty()) fuzz::Fail("a refused budget without a reason");
          return;
        }
        if (!(budget->share >= Budget::kMinShare && budget->share <= 1.0)) {
          fuzz::Fail("an accepted budget's share is out of range");
        }
        (void)Describe(*budget, kNow);
      },
      [](const wire::Advice& advice) {
        if (advice.text() == nullptr) return;
        const std::string text = Printable(advice.text()->string_view(), 256);
        if (text.size() > 256) fuzz::Fail("Printable exceeded its bound");
        for (char c : text) {
          if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
            fuzz::Fail("Printable left a control character");
          }
        }
      });
  return 0;
}
