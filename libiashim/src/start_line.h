// The line the shim logs when it becomes active (IASHIM_LOG=info). It is what a
// user reads to check that the settings took, so it speaks their language: a
// quota in units ("8.0 GiB", as IASHIM_MEM_LIMIT is written) and the trace
// file this process actually writes ("%p" already replaced by its pid).
//
//   active in pid 1234 (quota 8.0 GiB, coordinator tcp://127.0.0.1:5555, trace /tmp/job-1234.trace)
#ifndef IASHIM_START_LINE_H_
#define IASHIM_START_LINE_H_

#include <string>

#include "libiashim/src/config.h"

namespace iashim {

std::string StartLine(const Config& config, int pid);

}  // namespace iashim

#endif  // IASHIM_START_LINE_H_
