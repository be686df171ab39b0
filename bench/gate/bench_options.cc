#include "bench/gate/bench_options.h"

#include <optional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "bench/fakejob/cli_args.h"
#include "bench/fakejob/number_parse.h"

namespace iashim::gatebench {
namespace {

absl::Status BadValue(absl::string_view option, absl::string_view value, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("invalid value '", value, "' for ", option, ": ", why));
}

// The names iashim-fakejob resolves to <dir>/<name>.model: no paths, so that
// a pair always means two bundled (or --models-dir) profiles.
bool IsModelName(absl::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-' || c == '.';
    if (!ok) return false;
  }
  return !absl::EndsWith(name, ".model");
}

// Seconds in [0, kMaxSeconds]; a window must not be 0.
std::optional<double> ParseSeconds(const std::string& value, bool allow_zero) {
  std::optional<double> s = fakejob::ParseFiniteDouble(value);
  if (!s || *s > kMaxSeconds || *s < 0 || (!allow_zero && *s == 0)) return std::nullopt;
  return s;
}

}  // namespace

std::string BenchUsageText() {
  return absl::StrCat(
      "usage: iashim-gate-bench [options]\n"
      "Measures libiashim's launch gate with real iashim-fakejob processes sharing\n"
      "one simulated GPU (simgpu), from simgpu's own per-process accounting.\n"
      "\n"
      "  --mode split|protect|harvest|all\n"
      "                   split: GPU-time split between two busy jobs against the\n"
      "                   requested IASHIM_SHARE, and the unthrottled shim's cost;\n"
      "                   protect: a guaranteed job's throughput next to an\n"
      "                   opportunistic one at shares 1, 0.5, 0.25, 0.1;\n"
      "                   harvest: a sweep of fixed shares against the coordinator's\n"
      "                   control loop, for a 10% slowdown target (default all)\n"
      "  --warmup-s S     seconds from both jobs' start to the first snapshot\n"
      "                   (default ",
      kDefaultWarmupS,
      ")\n"
      "  --window-s S     seconds between the two snapshots (default ",
      kDefaultWindowS,
      ")\n"
      "  --settle-s S     harvest: seconds the control loop settles before its\n"
      "                   window of ",
      kLoopWindowS,
      " s (default ",
      kDefaultSettleS,
      ")\n"
      "  --models A+B,... model pairs (bench/data/models); split uses the first,\n"
      "                   protect all (default resnet50+lstm,transformer+resnet18,\n"
      "                   bert_base+vgg16,neumf+recoder)\n"
      "  --quick          short warm-up and window (",
      kQuickWarmupS, " s, ", kQuickWindowS,
      " s; harvest ",
      kQuickSettleS, " s, ", kQuickLoopWindowS,
      " s) for a smoke\n"
      "                   test; --warmup-s, --window-s, --settle-s still win\n"
      "  --help           this text\n"
      "\n"
      "Prints Markdown tables. Exit: 0 ran (accuracy is reported, not judged),\n"
      "1 a job or the simulated device failed, 2 bad arguments.\n");
}

absl::StatusOr<std::vector<ModelPair>> ParseModelPairs(const std::string& value) {
  std::vector<ModelPair> pairs;
  for (absl::string_view item : absl::StrSplit(value, ',')) {
    std::vector<absl::string_view> names = absl::StrSplit(item, '+');
    if (names.size() != 2 || !IsModelName(names[0]) || !IsModelName(names[1])) {
      return BadValue("--models", value,
                      absl::StrCat("'", item, "' is not a pair of model names A+B"));
    }
    pairs.emplace_back(std::string(names[0]), std::string(names[1]));
  }
  if (pairs.size() > kMaxPairs) {
    return BadValue("--models", value, absl::StrCat("at most ", kMaxPairs, " pairs"));
  }
  return pairs;
}

absl::StatusOr<BenchOptions> ParseBenchOptions(const std::vector<std::string>& args) {
  BenchOptions opt;
  std::optional<double> warmup_s, window_s, settle_s;
  fakejob::CliArgs cli(args, {"--quick", "--help", "-h"},
                       {"--mode", "--warmup-s", "--window-s", "--settle-s", "--models"});
  for (;;) {
    absl::StatusOr<std::optional<fakejob::CliArg>> next = cli.Next();
    if (!next.ok()) return next.status();
    if (!next->has_value()) break;
    const std::string& arg = (*next)->name;
    const std::string& value = (*next)->value;
    if (arg == "--quick") {
      opt.quick = true;
    } else if (arg == "--help" || arg == "-h") {
      opt.help = true;
    } else if (arg == "--mode") {
      if (value == "split") {
        opt.mode = Mode::kSplit;
      } else if (value == "protect") {
        opt.mode = Mode::kProtect;
      } else if (value == "harvest") {
        opt.mode = Mode::kHarvest;
      } else if (value == "all") {
        opt.mode = Mode::kAll;
      } else {
        return BadValue(arg, value, "must be 'split', 'protect', 'harvest' or 'all'");
      }
    } else if (arg == "--warmup-s") {
      warmup_s = ParseSeconds(value, /*allow_zero=*/true);
      if (!warmup_s) return BadValue(arg, value, "must be seconds in [0, 600]");
    } else if (arg == "--window-s") {
      window_s = ParseSeconds(value, /*allow_zero=*/false);
      if (!window_s) return BadValue(arg, value, "must be seconds in (0, 600]");
    } else if (arg == "--settle-s") {
      settle_s = ParseSeconds(value, /*allow_zero=*/true);
      if (!settle_s) return BadValue(arg, value, "must be seconds in [0, 600]");
    } else if (arg == "--models") {
      absl::StatusOr<std::vector<ModelPair>> pairs = ParseModelPairs(value);
      if (!pairs.ok()) return pairs.status();
      opt.pairs = *std::move(pairs);
    }
  }
  if (opt.quick) {
    opt.warmup_s = kQuickWarmupS;
    opt.window_s = kQuickWindowS;
    opt.settle_s = kQuickSettleS;
    opt.loop_window_s = kQuickLoopWindowS;
  }
  if (settle_s) opt.settle_s = *settle_s;
  if (warmup_s) opt.warmup_s = *warmup_s;
  if (window_s) opt.window_s = *window_s;
  return opt;
}

}  // namespace iashim::gatebench
