#include "libiashim/src/start_line.h"

#include "common/text/text.h"

namespace iashim {

std::string StartLine(const Config& config, int pid) {
  const std::string quota = config.mem_limit_bytes ? FormatBytes(config.mem_limit_bytes) : "none";
  const std::string coordinator = config.coordinator.empty() ? "none" : config.coordinator;
  const std::string trace =
      config.trace_path.empty() ? "none" : ExpandTracePath(config.trace_path, pid);
  return "active in pid " + std::to_string(pid) + " (quota " + quota + ", coordinator " +
         coordinator + ", trace " + trace + ")";
}

}  // namespace iashim
