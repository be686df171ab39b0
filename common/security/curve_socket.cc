#include "common/security/curve_socket.h"

#include <zmq.h>

#include <cerrno>

#include "common/security/curve.h"

namespace iashim::security {
namespace {

// ZeroMQ takes a Z85 key as 41 bytes with the terminating NUL.
bool SetKey(void* socket, int option, const std::string& key, const char* what,
            std::string* error) {
  if (zmq_setsockopt(socket, option, key.c_str(), key.size() + 1) != 0) {
    *error = std::string("cannot set the ") + what + ": " + zmq_strerror(errno);
    return false;
  }
  return true;
}

}  // namespace

bool ApplyClientKeys(void* socket, const ClientKeys& keys, std::string* error) {
  if (!keys.curve()) return true;
  if (!CurveAvailable(error)) return false;
  KeyPair own{keys.client_public, keys.client_secret};
  if (own.public_key.empty() && !NewKeyPair(&own, error)) return false;
  return SetKey(socket, ZMQ_CURVE_SERVERKEY, keys.server_public, "coordinator's public key",
                error) &&
         SetKey(socket, ZMQ_CURVE_PUBLICKEY, own.public_key, "client public key", error) &&
         SetKey(socket, ZMQ_CURVE_SECRETKEY, own.secret_key, "client secret key", error);
}

bool ApplyServerKey(void* socket, const std::string& secret_key, std::string* error) {
  if (!CurveAvailable(error)) return false;
  const int on = 1;
  if (zmq_setsockopt(socket, ZMQ_CURVE_SERVER, &on, sizeof on) != 0) {
    *error = std::string("cannot make the socket a CURVE server: ") + zmq_strerror(errno);
    return false;
  }
  return SetKey(socket, ZMQ_CURVE_SECRETKEY, secret_key, "coordinator's secret key", error);
}

}  // namespace iashim::security
