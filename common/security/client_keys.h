// The keys a tool (`iashim`, `iashim-top`) uses for one coordinator endpoint,
// from its options: the coordinator's public key (--coordinator-key or
// IASHIM_COORDINATOR_KEY) and, for write actions, the admin's secret key file
// (--admin-key). Plain text is allowed to a loopback endpoint only.
#ifndef IASHIM_COORDINATOR_SECURITY_CLIENT_KEYS_H_
#define IASHIM_COORDINATOR_SECURITY_CLIENT_KEYS_H_

#include <string>

#include "common/security/curve_socket.h"

namespace iashim::security {

// `coordinator_key`: 40 Z85 characters or a public key file's path; empty:
// none. `admin_secret_file`: empty: none. Errors say which input is wrong
// and, for an endpoint beyond loopback without a key, how to get one.
bool ResolveClientKeys(const std::string& endpoint, const std::string& coordinator_key,
                       const std::string& admin_secret_file, ClientKeys* keys,
                       std::string* error);

}  // namespace iashim::security

#endif  // IASHIM_COORDINATOR_SECURITY_CLIENT_KEYS_H_
