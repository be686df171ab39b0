// The `iashim` CLI's reading of a coordinator reply: CheckReply (verify,
// version, payload) as Request() applies it, then what place/run
// (DecodePlacement), release (DecodeRelease) and status (FormatStatusTable,
// FormatStatusJson) do with a usable reply.
#include <cstdint>

#include "coordinator/client/coordinator_client.h"
#include "coordinator/client/place_messages.h"
#include "coordinator/client/release_messages.h"
#include "coordinator/cli/status_format.h"
#include "schemas/telemetry_generated.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iashim;
  using namespace iashim::cli;
  using namespace iashim::client;
  const Reply reply(data, size);
  if (CheckReply(reply, wire::Payload::PlaceReply) == ReplyCheck::kUsable) {
    const Placement p = DecodePlacement(*reply.envelope());
    if (p.outcome != Placement::Outcome::kPlaced && p.reason.empty()) {
      fuzz::Fail("a refused or queued placement without a reason");
    }
  }
  if (CheckReply(reply, wire::Payload::ReleaseReply) == ReplyCheck::kUsable) {
    const Release r = DecodeRelease(*reply.envelope());
    if (!r.released && r.message.empty()) fuzz::Fail("a release refused without a reason");
  }
  if (CheckReply(reply, wire::Payload::StateSnapshot) == ReplyCheck::kUsable) {
    const wire::Envelope& envelope = *reply.envelope();
    if (envelope.payload_as_ErrorReply() == nullptr) {
      const wire::StateSnapshot& snapshot = *envelope.payload_as_StateSnapshot();
      (void)FormatStatusTable(snapshot);
      const std::string json = FormatStatusJson(snapshot);
      if (json.empty() || json.front() != '{' || json.back() != '\n') {
        fuzz::Fail("status JSON is not one object and a newline");
      }
    }
  }
  return 0;
}
