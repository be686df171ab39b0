// `iashim keygen`: writes a coordinator or admin key pair (keygen_options.h)
// and says where, and which half goes to whom.
#ifndef IASHIM_COORDINATOR_CLI_KEYGEN_COMMAND_H_
#define IASHIM_COORDINATOR_CLI_KEYGEN_COMMAND_H_

#include <string>
#include <vector>

namespace iashim::cli {

// `args` after "keygen"; returns the exit status.
int KeygenCommand(const std::vector<std::string>& args);

}  // namespace iashim::cli

#endif  // IASHIM_COORDINATOR_CLI_KEYGEN_COMMAND_H_
