#include "coordinator/daemon/server_keys.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/security/curve.h"
#include "common/security/key_file.h"

namespace iashim::daemon {

absl::StatusOr<ServerKeys> LoadServerKeys(const DaemonOptions& options) {
  ServerKeys keys;
  if (options.curve_secret_key_file.empty()) return keys;
  std::string error;
  if (!security::CurveAvailable(&error)) return absl::FailedPreconditionError(error);
  if (!security::ReadSecretKeyFile(options.curve_secret_key_file, &keys.secret_key, &error)) {
    return absl::InvalidArgumentError(absl::StrCat("--curve-secret-key: ", error));
  }
  if (!security::PublicKeyOf(keys.secret_key, &keys.public_key, &error)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--curve-secret-key ", options.curve_secret_key_file, ": ", error));
  }
  for (const std::string& file : options.admin_key_files) {
    std::string key;
    if (!security::ReadPublicKeyFile(file, &key, &error)) {
      return absl::InvalidArgumentError(absl::StrCat("--admin-key: ", error));
    }
    keys.admin_public_keys.push_back(std::move(key));
  }
  return keys;
}

}  // namespace iashim::daemon
