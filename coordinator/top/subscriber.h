// The SUB socket on the coordinator's snapshot stream. Connecting never waits
// for the coordinator (ZeroMQ reconnects in the background, also after a
// coordinator restart), so the screen is up at once and says what it waits for.
#ifndef IASHIM_COORDINATOR_TOP_SUBSCRIBER_H_
#define IASHIM_COORDINATOR_TOP_SUBSCRIBER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <zmq.hpp>

#include "common/security/curve_socket.h"
#include "coordinator/top/snapshot_view.h"

namespace iashim::top {

struct SubscriberCounts {
  uint64_t received = 0;       // messages, of any kind
  uint64_t snapshots = 0;      // valid snapshots (only the newest of a burst is decoded)
  uint64_t invalid = 0;        // failed verification
  uint64_t wrong_version = 0;  // an Envelope version we do not speak
  uint64_t not_snapshot = 0;   // another payload

  uint64_t dropped() const { return invalid + wrong_version + not_snapshot; }
};

class Subscriber {
 public:
  // Throws zmq::error_t when ZeroMQ rejects the endpoint, std::runtime_error
  // when it rejects the CurveZMQ keys (none: plain text).
  Subscriber(zmq::context_t& context, const std::string& endpoint,
             const security::ClientKeys& keys = {});

  // For zmq::poll.
  zmq::socket_t& socket() { return socket_; }

  // Receives everything queued, without blocking, and returns the newest
  // valid snapshot among it, if any. Older ones in the same burst are only
  // verified: the screen shows the latest state, and decoding each one would
  // waste the time a slow terminal needs after a stall.
  std::optional<ClusterView> Drain();

  const SubscriberCounts& counts() const { return counts_; }

 private:
  zmq::socket_t socket_;
  SubscriberCounts counts_;
  zmq::message_t newest_;  // the newest valid snapshot message of the current drain
};

}  // namespace iashim::top

#endif  // IASHIM_COORDINATOR_TOP_SUBSCRIBER_H_
