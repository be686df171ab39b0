#include "coordinator/cli/keygen_command.h"

#include <cstdio>
#include <cstdlib>

#include "common/security/curve.h"
#include "common/security/key_writer.h"
#include "coordinator/cli/commands.h"
#include "coordinator/cli/keygen_options.h"

namespace iashim::cli {

int KeygenCommand(const std::vector<std::string>& args) {
  absl::StatusOr<KeygenOptions> options =
      ParseKeygenOptions(args, std::getenv("XDG_CONFIG_HOME"), std::getenv("HOME"));
  if (!options.ok()) {
    std::fprintf(stderr, "iashim: %s\nTry 'iashim keygen --help'.\n",
                 std::string(options.status().message()).c_str());
    return kExitUsage;
  }
  if (options->help) {
    std::fputs(KeygenUsage().c_str(), stdout);
    return kExitOk;
  }
  std::string error;
  security::KeyPair pair;
  security::WrittenKeyPair written;
  if (!security::NewKeyPair(&pair, &error) ||
      !security::WriteKeyPair(options->dir, options->file_name(), pair, options->force, &written,
                              &error)) {
    std::fprintf(stderr, "iashim: keygen: %s\n", error.c_str());
    return kExitRefused;
  }
  const char* pub = written.public_path.c_str();
  const char* secret = written.secret_path.c_str();
  if (options->admin) {
    std::printf(
        "Wrote the admin's key pair:\n"
        "  public  %s\n"
        "          give it to the coordinator: iashim-coordinator --admin-key %s\n"
        "  secret  %s (mode 0600)\n"
        "          keep it private; write actions use it: iashim drain --admin-key %s ...\n",
        pub, pub, secret, secret);
  } else {
    std::printf(
        "Wrote the coordinator's key pair:\n"
        "  public  %s\n"
        "          give it to shims and tools: IASHIM_COORDINATOR_KEY=%s\n"
        "          (or --coordinator-key %s)\n"
        "  secret  %s (mode 0600)\n"
        "          for the coordinator only: iashim-coordinator --curve-secret-key %s\n",
        pub, pub, pub, secret, secret);
  }
  std::printf("Public key: %s\n", pair.public_key.c_str());
  return kExitOk;
}

}  // namespace iashim::cli
