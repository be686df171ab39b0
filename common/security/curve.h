// What the installed libzmq offers for CurveZMQ: whether it was built with
// CURVE at all, fresh key pairs, and the public half of a secret key.
#ifndef IASHIM_COORDINATOR_SECURITY_CURVE_H_
#define IASHIM_COORDINATOR_SECURITY_CURVE_H_

#include <string>

namespace iashim::security {

// A key pair in Z85 text, 40 characters each.
struct KeyPair {
  std::string public_key;
  std::string secret_key;
};

// True when libzmq supports CURVE (zmq_has("curve")); otherwise false with
// `*error` saying so and what to do.
bool CurveAvailable(std::string* error);

// A fresh key pair from libzmq's random source (zmq_curve_keypair).
bool NewKeyPair(KeyPair* pair, std::string* error);

// The public key of a valid Z85 secret key (zmq_curve_public).
bool PublicKeyOf(const std::string& secret_key, std::string* public_key, std::string* error);

}  // namespace iashim::security

#endif  // IASHIM_COORDINATOR_SECURITY_CURVE_H_
