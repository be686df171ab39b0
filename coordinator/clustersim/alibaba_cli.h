// `iashim-clustersim --alibaba-nodes FILE --alibaba-pods FILE [--json]
// [--max-pods N] [--alibaba-mode timed|fill] [--alibaba-min-gain X]
// [--alibaba-policy iashim|bestfit|firstfit]`: the Alibaba 2023 scale replay
// (alibaba_replay.h). main() hands the command line here when an argument
// starts with --alibaba.
//
// Prints a table, or with --json one JSON object on one line. Exit status: 0
// done, 1 the trace could not be read or replayed, 2 a bad command line.
#ifndef IASHIM_COORDINATOR_CLUSTERSIM_ALIBABA_CLI_H_
#define IASHIM_COORDINATOR_CLUSTERSIM_ALIBABA_CLI_H_

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "coordinator/clustersim/alibaba_replay.h"

namespace iashim::clustersim {

struct AlibabaCliOptions {
  std::string nodes_file;
  std::string pods_file;
  bool json = false;
  bool help = false;
  int64_t max_pods = -1;           // all
  AlibabaReplayMode mode = AlibabaReplayMode::kTimed;
  std::optional<double> min_gain;  // the policy's default when absent
  std::string policy = "iashim";   // or a packing baseline (alibaba_baselines.h)
  AlibabaReplayOptions::Interference interference = AlibabaReplayOptions::Interference::kQuota;
  bool packing = true;             // iashim's fragmentation term
};

// The arguments after the program's name. Errors name the argument.
absl::StatusOr<AlibabaCliOptions> ParseAlibabaCliArgs(std::span<const std::string_view> args);

std::string AlibabaCliUsage();

// One JSON object, no newline. `policy`: the --alibaba-policy that ran;
// `load_s`: time spent reading the files.
std::string AlibabaResultJson(const AlibabaReplayResult& r, const AlibabaReplayOptions& options,
                              std::string_view policy, double load_s);
std::string AlibabaResultTable(const AlibabaReplayResult& r, const AlibabaReplayOptions& options,
                               std::string_view policy, double load_s);

// The whole command; argv[0] is the program's name.
int RunAlibabaCli(int argc, char** argv);
int RunAlibabaCli(std::span<const std::string_view> args, std::ostream& out, std::ostream& err);

}  // namespace iashim::clustersim

#endif  // IASHIM_COORDINATOR_CLUSTERSIM_ALIBABA_CLI_H_
