#include "common/security/curve.h"

#include <zmq.h>

#include <cerrno>
#include <cstring>

#include "common/security/z85_key.h"

namespace iashim::security {

bool CurveAvailable(std::string* error) {
  if (zmq_has("curve") == 1) return true;
  *error =
      "this libzmq was built without CURVE security (zmq_has(\"curve\") is false); install a "
      "libzmq with libsodium or its own TweetNaCl, e.g. Debian's libzmq5";
  return false;
}

bool NewKeyPair(KeyPair* pair, std::string* error) {
  if (!CurveAvailable(error)) return false;
  char public_key[kZ85KeyLength + 1] = {};
  char secret_key[kZ85KeyLength + 1] = {};
  if (zmq_curve_keypair(public_key, secret_key) != 0) {
    *error = std::string("zmq_curve_keypair failed: ") + zmq_strerror(errno);
    return false;
  }
  pair->public_key.assign(public_key, kZ85KeyLength);
  pair->secret_key.assign(secret_key, kZ85KeyLength);
  return true;
}

bool PublicKeyOf(const std::string& secret_key, std::string* public_key, std::string* error) {
  std::string why;
  if (!ValidZ85Key(secret_key, &why)) {
    *error = "the secret key " + why;
    return false;
  }
  if (!CurveAvailable(error)) return false;
  char out[kZ85KeyLength + 1] = {};
  if (zmq_curve_public(out, secret_key.c_str()) != 0) {
    *error = std::string("zmq_curve_public failed: ") + zmq_strerror(errno);
    return false;
  }
  public_key->assign(out, kZ85KeyLength);
  return true;
}

}  // namespace iashim::security
