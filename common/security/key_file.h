// Reading CurveZMQ key files as `iashim keygen` writes them: the key's 40 Z85
// characters and a newline. A secret key file must be readable by its owner
// only; anything else is refused rather than used, so a leaked key is noticed
// when it is made, not after.
#ifndef IASHIM_COORDINATOR_SECURITY_KEY_FILE_H_
#define IASHIM_COORDINATOR_SECURITY_KEY_FILE_H_

#include <string>

namespace iashim::security {

// Reads a public key file into `*key`. Errors name the file and the problem
// (missing, not a regular file, not one Z85 key).
bool ReadPublicKeyFile(const std::string& path, std::string* key, std::string* error);

// As ReadPublicKeyFile, and refuses a file that group or others may read or
// write, naming its mode and the chmod that fixes it.
bool ReadSecretKeyFile(const std::string& path, std::string* key, std::string* error);

// A public key given as a value (IASHIM_COORDINATOR_KEY, --coordinator-key):
// the path of an existing file is read as a public key file; otherwise exactly
// 40 Z85 characters are the key itself, and anything else is a file that
// cannot be read (the error says why).
bool ResolvePublicKey(const std::string& value, std::string* key, std::string* error);

}  // namespace iashim::security

#endif  // IASHIM_COORDINATOR_SECURITY_KEY_FILE_H_
