// A whole input file as text, for the parsers that name their source in
// every error ("<path>: cannot open", "<path>: read failed").
#ifndef IASHIM_COORDINATOR_CLUSTERSIM_READ_FILE_H_
#define IASHIM_COORDINATOR_CLUSTERSIM_READ_FILE_H_

#include <string>

#include "absl/status/statusor.h"

namespace iashim::clustersim {

absl::StatusOr<std::string> ReadWholeFile(const std::string& path);

}  // namespace iashim::clustersim

#endif  // IASHIM_COORDINATOR_CLUSTERSIM_READ_FILE_H_
