#include "common/security/client_keys.h"

#include "common/security/curve.h"
#include "common/security/key_file.h"
#include "common/security/loopback.h"

namespace iashim::security {

bool ResolveClientKeys(const std::string& endpoint, const std::string& coordinator_key,
                       const std::string& admin_secret_file, ClientKeys* keys,
                       std::string* error) {
  *keys = ClientKeys{};
  if (coordinator_key.empty()) {
    if (!admin_secret_file.empty()) {
      *error =
          "--admin-key needs the coordinator's public key too (--coordinator-key FILE or "
          "IASHIM_COORDINATOR_KEY): the admin is recognised over CurveZMQ only";
      return false;
    }
    if (!IsLoopbackEndpoint(endpoint)) {
      *error = "the coordinator " + endpoint +
               " is beyond this machine, and plain text is allowed to loopback only: give its "
               "public key with --coordinator-key FILE or IASHIM_COORDINATOR_KEY (the "
               "coordinator.key written by `iashim keygen` on its host)";
      return false;
    }
    return true;
  }
  std::string why;
  if (!ResolvePublicKey(coordinator_key, &keys->server_public, &why)) {
    *error = "the coordinator's public key: " + why;
    return false;
  }
  if (!CurveAvailable(error)) return false;
  if (!admin_secret_file.empty()) {
    if (!ReadSecretKeyFile(admin_secret_file, &keys->client_secret, &why)) {
      *error = "--admin-key: " + why;
      return false;
    }
    if (!PublicKeyOf(keys->client_secret, &keys->client_public, &why)) {
      *error = "--admin-key " + admin_secret_file + ": " + why;
      return false;
    }
  }
  return true;
}

}  // namespace iashim::security
