// The Slurm plugin's outside inputs (integrations/slurm): a site's
// plugstack.conf arguments, a user's --iashim* option values, and the release
// lines tasks hand to slurmstepd. The first byte picks which; the rest is the
// input (an argv for the arguments, NUL-separated).
#include <cstdint>
#include <string>

#include "common/text/names.h"
#include "integrations/slurm/job_request.h"
#include "integrations/slurm/plugin_config.h"
#include "integrations/slurm/release_channel.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iashim;
  if (size == 0) return 0;
  const uint8_t which = data[0] % 3;
  ++data;
  --size;
  if (which == 0) {
    const std::vector<std::string> words = fuzz::SplitArgs(data, size);
    const std::vector<std::string_view> args(words.begin(), words.end());
    const absl::StatusOr<slurm::PluginConfig> c = slurm::ParsePluginArgs(args);
    if (!c.ok() && c.status().message().empty()) fuzz::Fail("a refusal without a reason");
    if (c.ok() && !(c->timeout_s >= 0.05 && c->timeout_s <= 60)) fuzz::Fail("timeout_s out of range");
  } else if (which == 1) {
    const std::string value(fuzz::AsText(data, size));
    const auto p = slurm::ParsePriorityOption(value.c_str());
    if (!p.ok() && p.status().message().empty()) fuzz::Fail("a refusal without a reason");
    const auto m = slurm::ParseMemOption(value.c_str());
    if (m.ok() && *m == 0) fuzz::Fail("a zero memory quota accepted");
    const auto k = slurm::ParseKindOption(value.c_str());
    if (k.ok() && !ValidModelKind(*k)) fuzz::Fail("a kind the coordinator would refuse accepted");
  } else {
    std::string buffer(fuzz::AsText(data, size));
    for (const slurm::ReleaseEntry& e : slurm::TakeReleaseLines(buffer)) {
      // Whatever is taken is what a task could have sent.
      if (slurm::FormatReleaseLine(e).empty()) fuzz::Fail("an entry no task could send");
    }
    if (buffer.find('\n') != std::string::npos) fuzz::Fail("a complete line left behind");
  }
  return 0;
}
