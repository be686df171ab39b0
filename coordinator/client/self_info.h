// Facts about this process that requests carry or paths derive from.
#ifndef IASHIM_COORDINATOR_CLIENT_SELF_INFO_H_
#define IASHIM_COORDINATOR_CLIENT_SELF_INFO_H_

#include <string>

namespace iashim::client {

// gethostname(); "" if it fails (the coordinator then uses the peer's).
std::string HostName();

// The absolute path of the running executable (/proc/self/exe), "" if
// unreadable; symlinks resolved, so an `iashim` linked into ~/bin still finds
// the libraries next to the real one.
std::string SelfExePath();

}  // namespace iashim::client

#endif  // IASHIM_COORDINATOR_CLIENT_SELF_INFO_H_
