// Command-line options of iashim-gate-bench.
#ifndef IASHIM_BENCH_GATE_BENCH_OPTIONS_H_
#define IASHIM_BENCH_GATE_BENCH_OPTIONS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace iashim::gatebench {

enum class Mode { kSplit, kProtect, kHarvest, kAll };

// Model pairs: split uses the first, protect uses every pair (the first model
// of a pair is the guaranteed job, the second the opportunistic one).
using ModelPair = std::pair<std::string, std::string>;

inline constexpr double kDefaultWarmupS = 1.5;
inline constexpr double kDefaultWindowS = 4.0;
// --quick: long enough for every job to start and complete some kernels.
inline constexpr double kQuickWarmupS = 0.5;
inline constexpr double kQuickWindowS = 1.0;
// harvest's control-loop run: settling, then a window of its own (the loop's
// shares move in steps; a short window would catch one of them).
inline constexpr double kDefaultSettleS = 60;
inline constexpr double kLoopWindowS = 20;
inline constexpr double kQuickSettleS = 8;
inline constexpr double kQuickLoopWindowS = 2;
inline constexpr double kMaxSeconds = 600;
inline constexpr size_t kMaxPairs = 16;

struct BenchOptions {
  Mode mode = Mode::kAll;
  double warmup_s = kDefaultWarmupS;
  double window_s = kDefaultWindowS;
  double settle_s = kDefaultSettleS;     // harvest: the control loop's run
  double loop_window_s = kLoopWindowS;
  std::vector<ModelPair> pairs = {{"resnet50", "lstm"},
                                  {"transformer", "resnet18"},
                                  {"bert_base", "vgg16"},
                                  {"neumf", "recoder"}};
  bool quick = false;
  bool help = false;
};

// Parses argv (without the program name). A bad option or value gives
// InvalidArgument with one line naming the option and the value. Model names
// are checked for their syntax here; main checks that their profiles exist.
absl::StatusOr<BenchOptions> ParseBenchOptions(const std::vector<std::string>& args);

// "a+b,c+d" -> {{a, b}, {c, d}}.
absl::StatusOr<std::vector<ModelPair>> ParseModelPairs(const std::string& value);

std::string BenchUsageText();

}  // namespace iashim::gatebench

#endif  // IASHIM_BENCH_GATE_BENCH_OPTIONS_H_
