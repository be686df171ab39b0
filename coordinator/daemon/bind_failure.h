// What the coordinator says when it cannot bind --listen or --pub. The usual
// cause is a coordinator already running (a new user starts a second one in
// another terminal), so an address in use names the endpoint, says so, and
// names the option that picks another endpoint.
#ifndef IASHIM_COORDINATOR_DAEMON_BIND_FAILURE_H_
#define IASHIM_COORDINATOR_DAEMON_BIND_FAILURE_H_

#include <string>
#include <string_view>

namespace iashim::daemon {

// `option` is "--listen" or "--pub"; `err` the errno ZeroMQ failed with and
// `what` its text. E.g. "cannot listen on tcp://127.0.0.1:5555: Address
// already in use: another iashim-coordinator may be running; stop it, or give
// this one another endpoint with --listen".
std::string BindFailure(std::string_view option, std::string_view endpoint, int err,
                        std::string_view what);

}  // namespace iashim::daemon

#endif  // IASHIM_COORDINATOR_DAEMON_BIND_FAILURE_H_
