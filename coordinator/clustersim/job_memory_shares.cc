#include "coordinator/clustersim/job_memory_shares.h"

#include <cmath>
#include <vector>

#include "absl/strings/numbers.h"
#include "coordinator/clustersim/read_file.h"
#include "coordinator/clustersim/text.h"

namespace iashim::clustersim {

absl::StatusOr<std::map<std::string, double>> ParseJobMemoryShares(std::string_view text,
                                                                   std::string_view source) {
  std::map<std::string, double> shares;
  int line_number = 0;
  for (std::string_view line : Split(text, '\n')) {
    ++line_number;
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    const auto bad = [&](std::string_view why) {
      return absl::InvalidArgumentError(Cat(source, ":", line_number, ": ", why));
    };
    const std::vector<std::string_view> fields = Split(line, '\t');
    if (fields.size() != 2) {
      return bad(Cat(fields.size(), " tab-separated fields; want <job type> TAB <share>"));
    }
    if (fields[0].empty()) return bad("empty job type");
    double share = 0;
    if (!absl::SimpleAtod(Av(fields[1]), &share) || !std::isfinite(share) || share <= 0 ||
        share > 1) {
      return bad(Cat("share \"", fields[1], "\" is not a number in (0, 1]"));
    }
    if (!shares.emplace(std::string(fields[0]), share).second) {
      return bad(Cat("job type \"", fields[0], "\" listed twice"));
    }
  }
  if (shares.empty()) return absl::InvalidArgumentError(Cat(source, ": lists no job type"));
  return shares;
}

absl::StatusOr<std::map<std::string, double>> ReadJobMemoryShares(const std::string& path) {
  absl::StatusOr<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return text.status();
  return ParseJobMemoryShares(*text, path);
}

}  // namespace iashim::clustersim
