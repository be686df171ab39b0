// The exchange behind `iashim drain`, `undrain` and `priority`: the
// AdminRequest they send and what the AdminReply (or an ErrorReply: the
// coordinator refused, e.g. no admin key) means.
#ifndef IASHIM_COORDINATOR_CLI_ADMIN_MESSAGES_H_
#define IASHIM_COORDINATOR_CLI_ADMIN_MESSAGES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "coordinator/cli/cli_options.h"
#include "schemas/telemetry_generated.h"

namespace iashim::cli {

// A finished Envelope holding the AdminRequest for `options` (an admin command).
std::vector<uint8_t> EncodeAdminRequest(const CliOptions& options, int pid);

struct AdminOutcome {
  bool ok = false;
  std::string text;  // ok: what was done; else: why not, in the coordinator's words
};

// `envelope` is a verified reply holding an AdminReply or an ErrorReply.
AdminOutcome DecodeAdminReply(const wire::Envelope& envelope);

}  // namespace iashim::cli

#endif  // IASHIM_COORDINATOR_CLI_ADMIN_MESSAGES_H_
