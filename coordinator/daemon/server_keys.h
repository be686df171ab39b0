// The coordinator's CurveZMQ keys, read from the files its options name:
// its own secret key (the public one derived from it) and the admins' public
// keys. Read once at start, before anything binds.
#ifndef IASHIM_COORDINATOR_DAEMON_SERVER_KEYS_H_
#define IASHIM_COORDINATOR_DAEMON_SERVER_KEYS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/daemon/daemon_options.h"

namespace iashim::daemon {

struct ServerKeys {
  std::string secret_key;  // Z85; empty: no CURVE (loopback only)
  std::string public_key;  // what shims and tools must be given
  std::vector<std::string> admin_public_keys;

  bool curve() const { return !secret_key.empty(); }
};

// Empty keys when no --curve-secret-key. Errors name the file and what is
// wrong with it, or say that this libzmq has no CURVE.
absl::StatusOr<ServerKeys> LoadServerKeys(const DaemonOptions& options);

}  // namespace iashim::daemon

#endif  // IASHIM_COORDINATOR_DAEMON_SERVER_KEYS_H_
