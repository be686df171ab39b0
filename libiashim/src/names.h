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

}  // namespace iashim

#endif  // IASHIM_NAMES_H_
