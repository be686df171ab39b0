// Writing a CurveZMQ key pair as `iashim keygen` does: NAME (the public key,
// mode 0644) and NAME_secret (mode 0600) in a directory created private
// (0700) if missing.
#ifndef IASHIM_COORDINATOR_SECURITY_KEY_WRITER_H_
#define IASHIM_COORDINATOR_SECURITY_KEY_WRITER_H_

#include <string>

#include "common/security/curve.h"

namespace iashim::security {

struct WrittenKeyPair {
  std::string public_path;
  std::string secret_path;
};

// Writes `pair` to DIR/NAME and DIR/NAME_secret, each file complete or not
// there (written aside, then linked or renamed into place). Without
// `replace`, an existing file of either name is an error and nothing is
// written; with it, both are replaced.
bool WriteKeyPair(const std::string& dir, const std::string& name, const KeyPair& pair,
                  bool replace, WrittenKeyPair* written, std::string* error);

}  // namespace iashim::security

#endif  // IASHIM_COORDINATOR_SECURITY_KEY_WRITER_H_
