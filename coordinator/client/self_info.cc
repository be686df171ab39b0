#include "coordinator/client/self_info.h"

#include <limits.h>
#include <unistd.h>

namespace iashim::client {

std::string HostName() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

std::string SelfExePath() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf);
  // n == sizeof buf: possibly truncated, so not a path to trust.
  if (n <= 0 || static_cast<size_t>(n) >= sizeof buf) return "";
  return std::string(buf, static_cast<size_t>(n));
}

}  // namespace iashim::client
