// The coordinator's whole message path: the input is one message to a fresh
// daemon::Coordinator (no state store, three GPUs on two nodes) that already
// has one shim bound, first from that shim, then from an admin tool. This
// runs the FlatBuffers verifier and every handler; a tick then runs the
// control loop on whatever the message left. Every reply must verify.
#include <cstdint>
#include <vector>

#include "coordinator/daemon/coordinator.h"
#include "tests/coordinator/daemon/daemon_messages.h"
#include "tests/fuzz/fuzz_input.h"

namespace iashim::fuzz {
namespace {

using daemon::testing::kSecond;
using daemon::testing::kUnix;
using daemon::testing::ReceivedMessage;

// Mixed GPU types: the interference model keys what it knows by type.
policy::Cluster SmallCluster() {
  policy::Cluster c = daemon::testing::TwoNodes();
  policy::GpuInfo& node2 = c.gpus.back();
  node2.type = "a100";
  node2.name = "A100";
  node2.memory_bytes = uint64_t{80} << 30;
  return c;
}

void CheckReplies(const std::vector<daemon::Outgoing>& out) {
  for (const daemon::Outgoing& o : out) {
    if (ReceivedMessage(o.bytes).envelope() == nullptr) {
      Fail("the coordinator sent a message that does not verify");
    }
  }
}

}  // namespace
}  // namespace iashim::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iashim;
  using namespace iashim::fuzz;
  static const std::string hello =
      daemon::testing::Hello({.pid = 100, .job = "", .priority = wire::Priority::Opportunistic});
  daemon::Coordinator coordinator(daemon::DaemonOptions{}, SmallCluster(), nullptr, nullptr, 0);
  std::vector<daemon::Outgoing> out;
  const std::span<const uint8_t> input(data, size);
  coordinator.OnMessage(daemon::Sender{"shim-1", false}, AsBytes(hello), kSecond, kUnix, &out);
  coordinator.OnMessage(daemon::Sender{"shim-1", false}, input, 2 * kSecond, kUnix + kSecond,
                        &out);
  coordinator.OnMessage(daemon::Sender{"admin-tool", true}, input, 3 * kSecond,
                        kUnix + 2 * kSecond, &out);
  coordinator.OnTick(5 * kSecond, kUnix + 4 * kSecond, &out);
  CheckReplies(out);
  const std::string snapshot = coordinator.EncodeSnapshot(5 * kSecond, kUnix);
  if (ReceivedMessage(snapshot).envelope() == nullptr) {
    Fail("the coordinator's snapshot does not verify");
  }
  (void)coordinator.MetricsText(5 * kSecond);
  return 0;
}
