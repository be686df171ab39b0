// Names that cross process boundaries, one rule for the shim, the
// coordinator and the tools: ZeroMQ endpoints and job ids.
#ifndef IASHIM_NAMES_H_
#define IASHIM_NAMES_H_

#include <string_view>

namespace iashim {

// tcp://HOST:PORT (port 1-65535) or ipc://PATH, printable, at most 1024 bytes.
bool ValidEndpoint(std::string_view endpoint);

// An endpoint a socket can connect to: ValidEndpoint, and not tcp://*:PORT
// (which only means something to bind).
bool ValidConnectEndpoint(std::string_view endpoint);

// A job id (IASHIM_JOB): 1-128 of letters, digits and . _ - : / @ +
bool ValidJobName(std::string_view job);

// A job's token (IASHIM_JOB_TOKEN): 32 lowercase hex digits (128 bits).
bool ValidJobToken(std::string_view token);

// A model's kind (iashim run --kind, the interference model's key): 1-128
// printable ASCII characters, not starting or ending with a space, e.g.
// "ResNet-50 (batch size 64)".
bool ValidModelKind(std::string_view kind);

}  // namespace iashim

#endif  // IASHIM_NAMES_H_
