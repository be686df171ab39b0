// The one shape of a command-line error in iashim-clustersim's parsers:
// "--flag: what is wrong", as absl::InvalidArgumentError.
#ifndef IASHIM_COORDINATOR_CLUSTERSIM_FLAG_ERROR_H_
#define IASHIM_COORDINATOR_CLUSTERSIM_FLAG_ERROR_H_

#include <string_view>

#include "absl/status/status.h"
#include "coordinator/clustersim/text.h"

namespace iashim::clustersim {

inline absl::Status FlagError(std::string_view flag, std::string_view why) {
  return absl::InvalidArgumentError(Cat(flag, ": ", why));
}

}  // namespace iashim::clustersim

#endif  // IASHIM_COORDINATOR_CLUSTERSIM_FLAG_ERROR_H_
