// `iashim drain HOST[:GPU]`, `iashim undrain HOST[:GPU]` and `iashim priority
// JOB P`: one AdminRequest, the coordinator's answer printed. The coordinator
// takes them only from a connection holding the admin key.
#include <unistd.h>

#include <cstdio>
#include <vector>

#include "coordinator/cli/admin_messages.h"
#include "coordinator/cli/ask_coordinator.h"
#include "coordinator/cli/commands.h"
#include "coordinator/cli/interrupt.h"

namespace iashim::cli {

int AdminCommand(const CliOptions& options) {
  const std::vector<uint8_t> request = EncodeAdminRequest(options, getpid());
  CatchInterrupt();
  const client::RequestResult result = AskCoordinator(options, request, wire::Payload::AdminReply);
  if (const std::optional<int> exit = FailedRequestExit(options, result)) return *exit;
  const AdminOutcome outcome = DecodeAdminReply(*result.reply.envelope());
  if (!outcome.ok) {
    std::fprintf(stderr, "iashim: refused: %s\n", outcome.text.c_str());
    return kExitRefused;
  }
  std::printf("%s\n", outcome.text.c_str());
  return kExitOk;
}

}  // namespace iashim::cli
