// Turns a ZeroMQ socket (libzmq's void*, so cppzmq users and the shim share
// it) into a CURVE client or server. Called after the socket is made and
// before it connects or binds.
#ifndef IASHIM_COORDINATOR_SECURITY_CURVE_SOCKET_H_
#define IASHIM_COORDINATOR_SECURITY_CURVE_SOCKET_H_

#include <string>

namespace iashim::security {

// How a client reaches the coordinator.
struct ClientKeys {
  // The coordinator's public key (Z85); empty: plain text (loopback only).
  std::string server_public;
  // The client's own pair (Z85). Empty: a fresh ephemeral pair per socket,
  // which is what shims and read-only tools use; the admin's pair makes the
  // coordinator treat this client as the administrator.
  std::string client_public;
  std::string client_secret;

  bool curve() const { return !server_public.empty(); }
};

// Does nothing when !keys.curve(). Otherwise sets the CURVE client options;
// false with `*error` when libzmq refuses them.
bool ApplyClientKeys(void* socket, const ClientKeys& keys, std::string* error);

// Makes the socket a CURVE server with this secret key (Z85). Clients are then
// checked by the ZAP handler in the socket's context (daemon/zap_handler.h).
bool ApplyServerKey(void* socket, const std::string& secret_key, std::string* error);

}  // namespace iashim::security

#endif  // IASHIM_COORDINATOR_SECURITY_CURVE_SOCKET_H_
