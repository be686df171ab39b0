// Whether a ZeroMQ endpoint stays on this machine. The coordinator refuses to
// bind, the shim to send and the tools to connect in plain text to anything
// that does not (coordinator/security/README.md).
#ifndef IASHIM_COORDINATOR_SECURITY_LOOPBACK_H_
#define IASHIM_COORDINATOR_SECURITY_LOOPBACK_H_

#include <string_view>

namespace iashim::security {

// Local: ipc://..., inproc://..., tcp://127.A.B.C:PORT, tcp://[::1]:PORT,
// tcp://localhost:PORT. Anything else is not: tcp://*, tcp://0.0.0.0, other
// addresses, host names, interface names (tcp://eth0:PORT, even tcp://lo:PORT),
// and ZeroMQ's "source;destination" form. When unsure, not local.
bool IsLoopbackEndpoint(std::string_view endpoint);

// A HOST of HOST:PORT by the same rule (IPv6 with or without brackets): for
// --metrics.
bool IsLoopbackHost(std::string_view host);

}  // namespace iashim::security

#endif  // IASHIM_COORDINATOR_SECURITY_LOOPBACK_H_
