#include "coordinator/clustersim/read_file.h"

#include <fstream>
#include <sstream>
#include <utility>

#include "coordinator/clustersim/text.h"

namespace iashim::clustersim {

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(Cat(path, ": cannot open"));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return absl::DataLossError(Cat(path, ": read failed"));
  return std::move(text).str();
}

}  // namespace iashim::clustersim
