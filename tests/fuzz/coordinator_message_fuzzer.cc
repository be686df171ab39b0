// The coordinator's whole message path: the input is one message to a fresh
// daemon::Coordinator (no state store, three GPUs on two nodes) that already
// has one shim bound, first from that shim, then from an admin tool. This
// runs the FlatBuffers verifier and every handler; a tick then runs the
// control loop on whatever the message left. Every reply must verify.
#include <cstdint>
#include <vector>

#include "coordinator/daemon/coordinator.h"
#include "coordinator/daemon/wire_convert.h"
#include "schemas/telemetry_generated.h"
#include "tests/fuzz/fuzz_input.h"

namespace iashim::fuzz {
namespace {

namespace w = iashim::wire;
constexpr int64_t kSecond = 1'000'000'000;
constexpr int64_t kUnix = 1'800'000'000LL * kSecond;

policy::Cluster SmallCluster() {
  policy::Cluster c;
  c.gpus.push_back({{"node1", 0}, "v100", "Tesla V100", "GPU-1", 32ULL << 30});
  c.gpus.push_back({{"node1", 1}, "v100", "Tesla V100", "GPU-2", 32ULL << 30});
  c.gpus.push_back({{"node2", 0}, "a100", "A100", "GPU-3", 80ULL << 30});
  return c;
}

std::string Hello() {
  flatbuffers::FlatBufferBuilder fbb;
  const auto h = w::CreateHelloDirect(fbb, 100, "node1", "", "train.py", "0.1.0", 100, 0, 0, 0,
                                      w::Priority::Opportunistic, 1.0);
  return daemon::EnvelopeBytes(fbb, w::Payload::Hello, h.Union());
}

void CheckReplies(const std::vector<daemon::Outgoing>& out) {
  std::vector<uint64_t> aligned;
  for (const daemon::Outgoing& o : out) {
    if (wire::OpenEnvelope(o.bytes.data(), o.bytes.size(), &aligned).envelope == nullptr) {
      Fail("the coordinator sent a message that does not verify");
    }
  }
}

}  // namespace
}  // namespace iashim::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iashim;
  using namespace iashim::fuzz;
  static const std::string hello = Hello();
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
  std::vector<uint64_t> aligned;
  const std::string snapshot = coordinator.EncodeSnapshot(5 * kSecond, kUnix);
  if (wire::OpenEnvelope(snapshot.data(), snapshot.size(), &aligned).envelope == nullptr) {
    Fail("the coordinator's snapshot does not verify");
  }
  (void)coordinator.MetricsText(5 * kSecond);
  return 0;
}
