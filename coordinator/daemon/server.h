// Runs a Coordinator on ZeroMQ: a ROUTER socket for shims and tools, a PUB
// socket for state snapshots, an optional /metrics HTTP endpoint, and a clock.
// One thread does everything except /metrics, which renders under a lock.
#ifndef IASHIM_COORDINATOR_DAEMON_SERVER_H_
#define IASHIM_COORDINATOR_DAEMON_SERVER_H_

#include <atomic>
#include <functional>

#include "absl/status/status.h"
#include "coordinator/daemon/coordinator.h"
#include "coordinator/daemon/daemon_options.h"
#include "coordinator/daemon/server_keys.h"

namespace iashim::daemon {

// Serves until `*stop` becomes true (a signal handler sets it), then flushes
// the state store. Errors: sockets or the metrics endpoint that cannot be set up.
// With `keys.curve()` the ROUTER and the PUB are CURVE servers and a ZAP
// handler in this loop marks messages from admin keys (Sender::admin).
// `on_ready` runs once everything is bound, before the first message: a
// daemon says "listening" there, so a port in use is the first thing it says.
absl::Status Serve(const DaemonOptions& options, Coordinator& coordinator,
                   state::StateStore* store, const std::atomic<bool>* stop,
                   const ServerKeys& keys = {}, const std::function<void()>& on_ready = {});

}  // namespace iashim::daemon

#endif  // IASHIM_COORDINATOR_DAEMON_SERVER_H_
