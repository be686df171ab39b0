#include "coordinator/clustersim/cli_options.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <set>
#include <span>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "coordinator/clustersim/flag_error.h"
#include "coordinator/clustersim/replay.h"
#include "coordinator/clustersim/text.h"

namespace iashim::clustersim {
namespace {

std::string PolicyList(std::span<const std::string_view> names) {
  std::string list;
  for (std::string_view name : names) Append(&list, list.empty() ? "" : ",", name);
  return list;
}

template <typename Int>
absl::StatusOr<Int> ParseInt(std::string_view flag, std::string_view text, Int min, Int max) {
  Int v{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return FlagError(flag, Cat("\"", text, "\" is not an integer"));
  }
  if (v < min || v > max) {
    return FlagError(flag, Cat(text, " is out of range [", min, ", ", max, "]"));
  }
  return v;
}

absl::StatusOr<double> ParseDouble(std::string_view flag, std::string_view text) {
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) {
    return FlagError(flag, Cat("\"", text, "\" is not a finite number"));
  }
  return v;
}

// "ONE[,GANG]": a one-GPU job's start-up seconds and a gang's (default: ONE's).
absl::StatusOr<JobStartUp> ParseStartUp(std::string_view flag, std::string_view text) {
  const std::vector<std::string_view> parts = Split(text, ',');
  if (parts.size() > 2) return FlagError(flag, Cat("\"", text, "\": want ONE or ONE,GANG seconds"));
  JobStartUp s;
  for (size_t i = 0; i < parts.size(); ++i) {
    absl::StatusOr<double> v = ParseDouble(flag, parts[i]);
    if (!v.ok()) return v.status();
    if (!(*v >= 0 && *v <= 3600))
      return FlagError(flag, Cat(parts[i], " is not in [0, 3600] seconds"));
    (i == 0 ? s.one_gpu_s : s.gang_s) = *v;
  }
  if (parts.size() == 1) s.gang_s = s.one_gpu_s;
  return s;
}

absl::StatusOr<std::vector<std::string>> ParsePolicies(std::string_view text) {
  std::vector<std::string> out;
  for (std::string_view name : Split(text, ',')) {
    if (std::find(std::begin(kPolicyNames), std::end(kPolicyNames), name) ==
        std::end(kPolicyNames)) {
      return FlagError(
          "--policy", Cat("unknown policy \"", name, "\" (known: ", PolicyList(kPolicyNames), ")"));
    }
    if (std::find(out.begin(), out.end(), name) != out.end()) {
      return FlagError("--policy", Cat("\"", name, "\" given twice"));
    }
    out.emplace_back(name);
  }
  return out;
}

bool IsFlag(std::string_view arg) { return arg.starts_with("--") || arg == "-h"; }

// Every flag's properties in one row, so that the checks below (needs a value, does not
// apply to --kfold, applies only with ...) cannot disagree about a flag.
enum class Takes { kNothing, kValue, kFiles };
enum class AppliesTo { kBothModes, kReplayOnly };
enum class Needs { kNothing, kSlurmQueue, kGangsTakeBusyGpus };
struct FlagSpec {
  std::string_view name;
  Takes takes;
  AppliesTo applies_to;
  Needs needs = Needs::kNothing;
};
constexpr FlagSpec kFlags[] = {
    {"--throughputs", Takes::kValue, AppliesTo::kBothModes},
    {"--gpu-type", Takes::kValue, AppliesTo::kBothModes},
    {"--seed", Takes::kValue, AppliesTo::kBothModes},
    {"--kfold", Takes::kValue, AppliesTo::kBothModes},
    {"--json", Takes::kNothing, AppliesTo::kBothModes},
    {"--trace", Takes::kFiles, AppliesTo::kReplayOnly},
    {"--gpus", Takes::kValue, AppliesTo::kReplayOnly},
    {"--gpus-per-node", Takes::kValue, AppliesTo::kReplayOnly},
    {"--arrival-scale", Takes::kValue, AppliesTo::kReplayOnly},
    {"--guaranteed-every", Takes::kValue, AppliesTo::kReplayOnly},
    {"--queue", Takes::kValue, AppliesTo::kReplayOnly},
    {"--backfill-interval", Takes::kValue, AppliesTo::kReplayOnly, Needs::kSlurmQueue},
    {"--gangs-take-busy-gpus", Takes::kNothing, AppliesTo::kReplayOnly, Needs::kSlurmQueue},
    {"--guaranteed-gres", Takes::kNothing, AppliesTo::kReplayOnly, Needs::kSlurmQueue},
    {"--cpus-per-node", Takes::kValue, AppliesTo::kReplayOnly, Needs::kGangsTakeBusyGpus},
    {"--job-memory-share", Takes::kValue, AppliesTo::kReplayOnly, Needs::kGangsTakeBusyGpus},
    {"--job-memory-shares", Takes::kValue, AppliesTo::kReplayOnly, Needs::kGangsTakeBusyGpus},
    {"--start-up-s", Takes::kValue, AppliesTo::kReplayOnly},
    {"--managed-start-up-s", Takes::kValue, AppliesTo::kReplayOnly},
    {"--migrate-to-empty-gpus", Takes::kValue, AppliesTo::kReplayOnly},
    {"--policy", Takes::kValue, AppliesTo::kReplayOnly},
    {"--out", Takes::kValue, AppliesTo::kReplayOnly},
    {"--min-gain", Takes::kValue, AppliesTo::kReplayOnly},
    {"--uncertainty-weight", Takes::kValue, AppliesTo::kReplayOnly},
    {"--exploration", Takes::kValue, AppliesTo::kReplayOnly},
    {"--variants", Takes::kValue, AppliesTo::kReplayOnly},
    {"--variant-seed", Takes::kValue, AppliesTo::kReplayOnly},
};

const FlagSpec* FindFlag(std::string_view name) {
  for (const FlagSpec& spec : kFlags) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

}  // namespace

bool IsAlibabaCommandLine(const std::vector<std::string>& args) {
  return std::any_of(args.begin(), args.end(),
                     [](const std::string& a) { return a.starts_with("--alibaba"); });
}

absl::StatusOr<CliOptions> ParseCliOptions(const std::vector<std::string>& args) {
  CliOptions o;
  o.min_gain = kDefaultMinGain;
  o.uncertainty_weight = kDefaultUncertaintyWeight;
  o.exploration = kDefaultExploration;
  std::set<std::string> seen;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i];
    if (!IsFlag(flag)) {
      return absl::InvalidArgumentError(
          Cat("unexpected argument \"", flag, "\" (not after a flag that takes it)"));
    }
    std::optional<std::string> inline_value;
    if (const size_t eq = flag.find('='); eq != std::string::npos) {
      inline_value = flag.substr(eq + 1);
      flag.resize(eq);
    }
    if (flag == "--help" || flag == "-h") {
      o.mode = CliOptions::Mode::kHelp;
      return o;
    }
    const FlagSpec* spec = FindFlag(flag);
    if (spec == nullptr) {
      return absl::InvalidArgumentError(Cat("unknown flag ", flag, " (see --help)"));
    }
    if (spec->takes != Takes::kFiles && !seen.insert(flag).second) {
      return FlagError(flag, "given twice");
    }
    if (spec->takes == Takes::kNothing) {
      if (inline_value.has_value()) return FlagError(flag, "takes no value");
      if (flag == "--json") o.json = true;
      if (flag == "--gangs-take-busy-gpus") o.gangs_take_busy_gpus = true;
      if (flag == "--guaranteed-gres") o.guaranteed_gres = true;
      continue;
    }
    if (spec->takes == Takes::kFiles) {
      seen.insert(flag);
      if (inline_value.has_value()) {
        if (inline_value->empty()) return FlagError(flag, "empty file name");
        o.traces.push_back(*inline_value);
        continue;
      }
      size_t taken = 0;
      while (i + 1 < args.size() && !IsFlag(args[i + 1])) {
        if (args[i + 1].empty()) return FlagError(flag, "empty file name");
        o.traces.push_back(args[++i]);
        ++taken;
      }
      if (taken == 0) return FlagError(flag, "needs at least one trace file");
      continue;
    }
    std::string value;
    if (inline_value.has_value()) {
      value = *inline_value;
    } else if (i + 1 < args.size() && !args[i + 1].starts_with("--")) {
      value = args[++i];
    } else {
      return FlagError(flag, "needs a value");
    }
    if (flag == "--throughputs") {
      if (value.empty()) return FlagError(flag, "empty file name");
      o.throughputs = value;
    } else if (flag == "--gpu-type") {
      if (value.empty()) return FlagError(flag, "empty GPU type");
      o.gpu_type = value;
    } else if (flag == "--gpus") {
      absl::StatusOr<int> v = ParseInt<int>(flag, value, 1, 1'000'000);
      if (!v.ok()) return v.status();
      o.gpus = *v;
    } else if (flag == "--gpus-per-node") {
      absl::StatusOr<int> v = ParseInt<int>(flag, value, 1, 1024);
      if (!v.ok()) return v.status();
      o.gpus_per_node = *v;
    } else if (flag == "--arrival-scale") {
      absl::StatusOr<double> v = ParseDouble(flag, value);
      if (!v.ok()) return v.status();
      if (*v <= 0) return FlagError(flag, "must be > 0 (2 = jobs arrive twice as fast)");
      o.arrival_scale = *v;
    } else if (flag == "--guaranteed-every") {
      absl::StatusOr<int> v = ParseInt<int>(flag, value, 0, 1'000'000);
      if (!v.ok()) return v.status();
      o.guaranteed_every = *v;
    } else if (flag == "--policy") {
      absl::StatusOr<std::vector<std::string>> v = ParsePolicies(value);
      if (!v.ok()) return v.status();
      o.policies = *std::move(v);
    } else if (flag == "--seed") {
      absl::StatusOr<uint64_t> v = ParseInt<uint64_t>(flag, value, 0, UINT64_MAX);
      if (!v.ok()) return v.status();
      o.seed = *v;
    } else if (flag == "--out") {
      if (value.empty()) return FlagError(flag, "empty directory name");
      o.out_dir = value;
    } else if (flag == "--kfold") {
      absl::StatusOr<int> v = ParseInt<int>(flag, value, 2, 1000);
      if (!v.ok()) return v.status();
      o.kfold = *v;
    } else if (flag == "--min-gain") {
      absl::StatusOr<double> v = ParseDouble(flag, value);
      if (!v.ok()) return v.status();
      o.min_gain = *v;
    } else if (flag == "--exploration") {
      absl::StatusOr<double> v = ParseDouble(flag, value);
      if (!v.ok()) return v.status();
      if (*v < 0) return FlagError(flag, "must be >= 0 (standard errors of optimism)");
      o.exploration = *v;
    } else if (flag == "--variants") {
      absl::StatusOr<int> v = ParseInt<int>(flag, value, 1, 1000);
      if (!v.ok()) return v.status();
      o.variants = *v;
    } else if (flag == "--variant-seed") {
      absl::StatusOr<uint64_t> v = ParseInt<uint64_t>(flag, value, 0, UINT64_MAX);
      if (!v.ok()) return v.status();
      o.variant_seed = *v;
    } else if (flag == "--queue") {
      if (value == "reserve") {
        o.queue = QueueModel::kReserveForGangs;
      } else if (value == "greedy") {
        o.queue = QueueModel::kGreedy;
      } else if (value == "slurm") {
        o.queue = QueueModel::kSlurmNoTimeLimits;
      } else {
        return FlagError(flag, Cat("\"", value, "\" is none of reserve, greedy, slurm"));
      }
    } else if (flag == "--backfill-interval") {
      absl::StatusOr<double> v = ParseDouble(flag, value);
      if (!v.ok()) return v.status();
      if (!(*v > 0 && *v <= 86400)) return FlagError(flag, "must be in (0, 86400] seconds");
      o.backfill_interval_s = *v;
    } else if (flag == "--cpus-per-node") {
      absl::StatusOr<int> v = ParseInt<int>(flag, value, 1, 100'000);
      if (!v.ok()) return v.status();
      o.cpus_per_node = *v;
    } else if (flag == "--start-up-s" || flag == "--managed-start-up-s") {
      absl::StatusOr<JobStartUp> v = ParseStartUp(flag, value);
      if (!v.ok()) return v.status();
      (flag == "--start-up-s" ? o.start_up : o.managed_start_up.emplace()) = *v;
    } else if (flag == "--migrate-to-empty-gpus") {
      absl::StatusOr<double> v = ParseDouble(flag, value);
      if (!v.ok()) return v.status();
      if (!(*v >= 0 && *v <= 3600)) {
        return FlagError(flag, Cat(value, " is not in [0, 3600] seconds (what a move costs)"));
      }
      o.migration_cost_s = *v;
    } else if (flag == "--job-memory-share") {
      absl::StatusOr<double> v = ParseDouble(flag, value);
      if (!v.ok()) return v.status();
      if (!(*v > 0 && *v <= 1)) return FlagError(flag, "must be in (0, 1]");
      o.job_memory_share = *v;
    } else if (flag == "--job-memory-shares") {
      if (value.empty()) return FlagError(flag, "empty file name");
      o.job_memory_shares = value;
    } else if (flag == "--uncertainty-weight") {
      absl::StatusOr<double> v = ParseDouble(flag, value);
      if (!v.ok()) return v.status();
      if (*v < 0) return FlagError(flag, "must be >= 0");
      o.uncertainty_weight = *v;
    } else {
      return absl::InternalError(Cat(flag, " is in kFlags but has no parser here"));
    }
  }

  if (o.throughputs.empty())
    return FlagError("--throughputs", "required (Gavel's throughputs JSON)");
  if (o.gpu_type.empty()) return FlagError("--gpu-type", "required (e.g. v100)");
  if (seen.contains("--kfold")) {
    o.mode = CliOptions::Mode::kKfold;
    for (const FlagSpec& spec : kFlags) {
      if (spec.applies_to == AppliesTo::kReplayOnly && seen.contains(std::string(spec.name))) {
        return FlagError(spec.name, "does not apply to --kfold");
      }
    }
    return o;
  }
  if (o.traces.empty()) return FlagError("--trace", "required (one or more Gavel trace files)");
  if (o.gpus == 0) return FlagError("--gpus", "required (the cluster's GPU count)");
  for (const FlagSpec& spec : kFlags) {
    if (!seen.contains(std::string(spec.name))) continue;
    if (spec.needs == Needs::kSlurmQueue && o.queue != QueueModel::kSlurmNoTimeLimits) {
      return FlagError(spec.name, "applies only to --queue slurm");
    }
    if (spec.needs == Needs::kGangsTakeBusyGpus && !o.gangs_take_busy_gpus) {
      return FlagError(spec.name, "applies only with --gangs-take-busy-gpus");
    }
  }
  if (o.policies.empty()) {
    o.policies.assign(std::begin(kDefaultPolicyNames), std::end(kDefaultPolicyNames));
  }
  if (o.variants > 0) {
    // Every policy runs on every variant: the ratios need them all.
    for (const char* single_run_only : {"--policy", "--out", "--seed"}) {
      if (seen.contains(single_run_only)) {
        return FlagError(single_run_only,
                         "does not apply to --variants (each variant has its own seed)");
      }
    }
  } else if (seen.contains("--variant-seed")) {
    return FlagError("--variant-seed", "needs --variants N");
  }
  return o;
}

std::string Usage() {
  return Cat(
      "usage: iashim-clustersim --trace FILE... --throughputs FILE --gpu-type TYPE --gpus N\n"
      "           [--gpus-per-node K] [--arrival-scale X] [--policy P,...] [--seed S]\n"
      "           [--out DIR] [--json] [--min-gain G] [--uncertainty-weight W]\n"
      "           [--exploration Z] [--guaranteed-every M]\n"
      "           [--queue reserve|greedy|slurm [--backfill-interval S] [--guaranteed-gres]\n"
      "            [--gangs-take-busy-gpus [--cpus-per-node C] [--job-memory-share F]\n"
      "             [--job-memory-shares FILE]]]\n"
      "           [--start-up-s ONE[,GANG]] [--managed-start-up-s ONE[,GANG]]\n"
      "           [--migrate-to-empty-gpus COST_S]\n"
      "           [--variants N [--variant-seed S]]\n"
      "       iashim-clustersim --kfold K --throughputs FILE --gpu-type TYPE [--seed S] [--json]\n"
      "       iashim-clustersim --alibaba-nodes F --alibaba-pods F ...   (Alibaba replay)\n"
      "\n"
      "Replays Gavel's traces on N GPUs of TYPE, with Gavel's measured solo and paired\n"
      "throughputs as ground truth, under each policy (default: ",
      PolicyList(kDefaultPolicyNames),
      "; also firstfit-whole:\n"
      "firstfit with every guaranteed job on a whole GPU, --gres=gpu:1).\n"
      "  --gpus-per-node K     GPUs per node, gangs stay on one (default 8)\n"
      "  --arrival-scale X     divide arrival times by X (2 = twice as fast; default 1)\n"
      "  --out DIR             write summary.csv, summary.json and jobs-<policy>.csv\n"
      "  --json                one JSON object per policy per line instead of a table\n"
      "  --guaranteed-every M  job i (0-based, in arrival order) is guaranteed when\n"
      "                        i % M == 0; iashim and oracle then throttle its\n"
      "                        co-runner to hold it at its 10% slowdown target\n"
      "                        (default 0: every job opportunistic)\n"
      "  --queue Q             how waiting jobs start (README.md, \"Queue\"): reserve\n"
      "                        (default: any job that fits starts, the oldest waiting\n"
      "                        gang reserves a node), greedy (no reservation), slurm\n"
      "                        (Slurm with no time limits: in arrival order up to the\n"
      "                        first blocked job, and a backfill pass every S seconds)\n"
      "  --backfill-interval S with --queue slurm: Slurm's bf_interval (default 30)\n"
      "  --gangs-take-busy-gpus  with --queue slurm: Slurm 22.05's shards, where a\n"
      "                        gang may be given GPUs one-GPU jobs' shards still use\n"
      "                        and those take no shard job until it ends; the gang\n"
      "                        runs beside the jobs there, under iashim and oracle\n"
      "                        on the node they predict best, with their share\n"
      "                        control (README.md, \"Queue\")\n"
      "  --guaranteed-gres     with --queue slurm: under iashim and oracle, every\n"
      "                        guaranteed job and every gang asks its nodes for a\n"
      "                        guaranteed GPU per GPU it uses there, of as many as a\n"
      "                        node has (a count-only GRES, job_submit.lua), so Slurm\n"
      "                        starts neither on a node whose guaranteed jobs and\n"
      "                        gangs leave it too few\n"
      "  --cpus-per-node C     with it: a node's CPUs, a job taking one per GPU; a gang\n"
      "                        joins one-GPU jobs only while C leave it a CPU per task\n"
      "                        (default: no limit)\n"
      "  --job-memory-share F  with it: the share of its GPU's memory each one-GPU job\n"
      "                        holds (the live replay's: 0.5); under iashim and oracle\n"
      "                        a gang runs only where every GPU has some left, and\n"
      "                        waits in its GPUs until then (default: not modelled)\n"
      "  --job-memory-shares FILE  with it: the same per job type (lines\n"
      "                        \"<job type> TAB <share>\"; the live replay writes one)\n"
      "  --start-up-s ONE[,GANG]  seconds a job's processes take beyond its iterations\n"
      "                        (a one-GPU job's, a gang's; default 0): it runs that\n"
      "                        much longer at its solo pace, as a compressed live\n"
      "                        replay's jobs do (live-replay.sh passes measured ones)\n"
      "  --managed-start-up-s ONE[,GANG]  the same for iashim's and oracle's jobs\n"
      "                        (under the shim; default: --start-up-s)\n"
      "  --migrate-to-empty-gpus COST_S  iashim/oracle, as the coordinator's\n"
      "                        --move-command: when a GPU empties and no job waits, the\n"
      "                        one-GPU opportunistic job on another node running slowest\n"
      "                        beside another moves there, checkpointed and restarted,\n"
      "                        COST_S seconds longer at its solo pace (default: none move)\n"
      "  --min-gain G          iashim/oracle: progress sharing must add (default ",
      kDefaultMinGain,
      ")\n"
      "  --uncertainty-weight W  iashim/oracle: cost of predicted uncertainty (default ",
      kDefaultUncertaintyWeight,
      ")\n"
      "  --exploration Z       iashim: admit a co-location when its gain plus Z standard\n"
      "                        errors reaches min-gain (default ",
      kDefaultExploration,
      ")\n"
      "  --variants N          replay N variants of the traces (VC subsets, job mix\n"
      "                        resampled, arrivals jittered, learner seeds; see\n"
      "                        README) and print each policy's median and worst case\n"
      "  --variant-seed S      which N variants (default 1)\n"
      "  --kfold K             cross-validate the interference predictors over the\n"
      "                        measured one-GPU pairs of TYPE, K folds\n");
}

}  // namespace iashim::clustersim
