// Reads an IASHIM_TRACE file (trace_format.h) into memory, joining sampled GPU
// times to their launches. Used by the iashim-trace tool and the tests.
#ifndef IASHIM_TRACE_READER_H_
#define IASHIM_TRACE_READER_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "libiashim/src/trace_format.h"

namespace iashim {

struct TraceEvent {
  TraceLaunch launch;
  uint64_t gpu_ns = 0;  // 0 when not sampled
};

struct Trace {
  TraceHeader header{};
  std::map<uint32_t, std::string> kernel_names;  // by process-local id
  std::vector<TraceEvent> events;
  std::optional<TraceTotals> totals;  // absent if the process did not exit cleanly
  bool truncated = false;             // the file ended mid-entry

  // Name of `kernel`, or "?" when unknown (id 0 or never named).
  std::string NameOf(uint32_t kernel) const;
};

// False with a reason when the file cannot be read or is not a version-1 trace.
bool ReadTrace(const std::string& path, Trace* trace, std::string* error);

}  // namespace iashim

#endif  // IASHIM_TRACE_READER_H_
