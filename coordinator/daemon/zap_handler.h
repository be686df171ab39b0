// The coordinator's ZAP handler (ZeroMQ RFC 27): libzmq asks it about every
// CURVE client that completes a handshake with a socket of the same context.
// It accepts any client key (shims use throwaway keys; what a job may do is
// decided by its token) and names the clients holding an --admin-key
// "admin" (their messages carry User-Id "admin"; server.cc reads it).
//
// It is one REP socket on inproc://zeromq.zap.01, polled by the server's own
// loop: no thread, no lock.
#ifndef IASHIM_COORDINATOR_DAEMON_ZAP_HANDLER_H_
#define IASHIM_COORDINATOR_DAEMON_ZAP_HANDLER_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "absl/status/statusor.h"

namespace iashim::daemon {

inline constexpr char kAdminUserId[] = "admin";

class ZapHandler {
 public:
  // `admin_keys`: Z85 public keys. Binds the ZAP endpoint of `context`;
  // error when the keys are not Z85 or the endpoint is taken.
  static absl::StatusOr<std::unique_ptr<ZapHandler>> Start(
      zmq::context_t& context, const std::vector<std::string>& admin_keys);

  zmq::socket_t& socket() { return socket_; }

  // Answers every request waiting on the socket. Never blocks.
  void HandlePending();

  uint64_t accepted() const { return accepted_; }
  uint64_t admins() const { return admins_; }
  uint64_t refused() const { return refused_; }

 private:
  explicit ZapHandler(zmq::context_t& context) : socket_(context, zmq::socket_type::rep) {}

  using Key = std::array<uint8_t, 32>;
  std::vector<Key> admin_keys_;
  zmq::socket_t socket_;
  uint64_t accepted_ = 0;
  uint64_t admins_ = 0;
  uint64_t refused_ = 0;
};

// The admin flag of a message received on a socket this handler serves.
bool FromAdmin(const zmq::message_t& message);

}  // namespace iashim::daemon

#endif  // IASHIM_COORDINATOR_DAEMON_ZAP_HANDLER_H_
