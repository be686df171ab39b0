#include "coordinator/daemon/bind_failure.h"

#include <cerrno>

namespace iashim::daemon {

std::string BindFailure(std::string_view option, std::string_view endpoint, int err,
                        std::string_view what) {
  // (Debian's Abseil has its own string_view: plain concatenation here.)
  std::string out = std::string("cannot ") + (option == "--pub" ? "publish on " : "listen on ");
  out.append(endpoint).append(": ").append(what);
  if (err == EADDRINUSE) {
    out.append(
           ": another iashim-coordinator may be running; stop it, or give this one another "
           "endpoint with ")
        .append(option);
  }
  return out;
}

}  // namespace iashim::daemon
