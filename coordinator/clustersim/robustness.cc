#include "coordinator/clustersim/robustness.h"

#include <algorithm>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "coordinator/clustersim/text.h"
#include "coordinator/clustersim/trace_variants.h"
#include "nlohmann/json.hpp"

namespace iashim::clustersim {
namespace {

const PolicySummary* Find(const VariantResult& r, std::string_view policy) {
  for (const PolicySummary& s : r.policies) {
    if (s.policy == policy) return &s;
  }
  return nullptr;
}

double Median(std::vector<double> v) { return Percentile(std::move(v), 0.5); }

double Worst(const std::vector<double>& v) {
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}

}  // namespace

absl::StatusOr<std::vector<VariantResult>> ReplayVariants(
    std::span<const std::vector<TraceJob>> vcs, const GavelThroughputs& truth,
    const ReplayOptions& options, int variants, uint64_t variant_seed) {
  std::vector<VariantResult> out;
  for (int i = 0; i < variants; ++i) {
    const std::vector<TraceJob> trace = MakeVariant(vcs, variant_seed, i);
    ReplayOptions o = options;
    o.policies.assign(std::begin(kDefaultPolicyNames), std::end(kDefaultPolicyNames));
    o.seed = VariantSeed(variant_seed, i);
    const PreparedJobs prepared = PrepareJobs(trace, truth, o.sim, o.arrival_scale, o.guaranteed_every);
    absl::StatusOr<std::vector<PolicyRun>> runs = Replay(prepared, truth, o);
    if (!runs.ok()) {
      return absl::Status(runs.status().code(), Cat("variant ", i, ": ", runs.status().message()));
    }
    VariantResult r;
    r.index = i;
    r.seed = o.seed;
    r.jobs = static_cast<int64_t>(prepared.jobs.size());
    for (PolicyRun& run : *runs) r.policies.push_back(std::move(run.summary));
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<PolicyRobustness> SummariseVariants(std::span<const VariantResult> results) {
  std::vector<PolicyRobustness> rows;
  if (results.empty()) return rows;
  for (const PolicySummary& first : results.front().policies) {
    PolicyRobustness row;
    row.policy = first.policy;
    std::vector<double> vs_oracle, vs_exclusive, later;
    for (const VariantResult& r : results) {
      const PolicySummary* s = Find(r, row.policy);
      const PolicySummary* oracle = Find(r, "oracle");
      const PolicySummary* exclusive = Find(r, "exclusive");
      const PolicySummary* firstfit = Find(r, "firstfit");
      const PolicySummary* iadeep = Find(r, "iadeep");
      if (s == nullptr || oracle == nullptr || exclusive == nullptr) continue;
      ++row.variants;
      vs_oracle.push_back(s->mean_jct_s / oracle->mean_jct_s);
      vs_exclusive.push_back(s->mean_jct_s / exclusive->mean_jct_s);
      later.push_back(s->jobs > 0 ? static_cast<double>(s->later_than_exclusive) /
                                        static_cast<double>(s->jobs)
                                  : 0);
      if (firstfit != nullptr && s->mean_jct_s < firstfit->mean_jct_s) ++row.beats_firstfit;
      if (iadeep != nullptr && s->mean_jct_s < iadeep->mean_jct_s) ++row.beats_iadeep;
      if (s->mean_jct_s > exclusive->mean_jct_s) ++row.worse_than_exclusive;
      if (s->later_than_exclusive > oracle->later_than_exclusive) ++row.later_than_oracle;
    }
    row.jct_over_oracle_median = Median(vs_oracle);
    row.jct_over_oracle_worst = Worst(vs_oracle);
    row.jct_over_exclusive_median = Median(vs_exclusive);
    row.jct_over_exclusive_worst = Worst(vs_exclusive);
    row.later_fraction_median = Median(later);
    row.later_fraction_worst = Worst(later);
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string VariantsTable(std::span<const VariantResult> results) {
  std::string out = "per variant: mean JCT (h) per policy";
  if (results.empty()) return out + ": none\n";
  out += "\n variant         seed   jobs";
  for (const PolicySummary& p : results.front().policies) absl::StrAppendFormat(&out, " %9s", p.policy);
  out += "  iashim/oracle  pairs iashim/oracle  iashim MAE\n";
  for (const VariantResult& v : results) {
    absl::StrAppendFormat(&out, " %7d %12d %6d", v.index, v.seed, v.jobs);
    for (const PolicySummary& p : v.policies) absl::StrAppendFormat(&out, " %9.1f", p.mean_jct_s / 3600);
    const PolicySummary* iashim = Find(v, "iashim");
    const PolicySummary* oracle = Find(v, "oracle");
    if (iashim != nullptr && oracle != nullptr && oracle->mean_jct_s > 0) {
      absl::StrAppendFormat(&out, "  %13.3f  %6d / %-6d  %10.3f", iashim->mean_jct_s / oracle->mean_jct_s,
                            iashim->pair_starts, oracle->pair_starts, iashim->predictor_mae);
    }
    out += "\n";
  }
  return out;
}

std::string RobustnessTable(std::span<const PolicyRobustness> rows, int gpus, uint64_t seed) {
  std::string out = absl::StrFormat(
      "robustness: %d variants at %d GPUs (variant seed %d); mean JCT ratios, median and worst\n"
      "%-10s %9s %8s %9s %8s %8s %8s %8s %8s %8s %8s\n",
      rows.empty() ? 0 : rows.front().variants, gpus, seed, "policy", "/oracle", "worst", "/excl",
      "worst", "later%", "worst", ">ffit", ">iadeep", "<excl", ">orcl_lt");
  for (const PolicyRobustness& r : rows) {
    absl::StrAppendFormat(
        &out, "%-10s %9.3f %8.3f %9.3f %8.3f %8.1f %8.1f %8d %8d %8d %8d\n", r.policy,
        r.jct_over_oracle_median, r.jct_over_oracle_worst, r.jct_over_exclusive_median,
        r.jct_over_exclusive_worst, 100 * r.later_fraction_median, 100 * r.later_fraction_worst,
        r.beats_firstfit, r.beats_iadeep, r.worse_than_exclusive, r.later_than_oracle);
  }
  out +=
      ">ffit, >iadeep: variants where the policy's mean JCT beat firstfit's, iadeep's; <excl: "
      "variants where it was worse than exclusive; >orcl_lt: where more of its jobs finished "
      "later than under exclusive than the oracle's did\n";
  return out;
}

std::string RobustnessJsonLines(std::span<const PolicyRobustness> rows, int gpus, uint64_t seed) {
  std::string out;
  for (const PolicyRobustness& r : rows) {
    nlohmann::json j;
    j["policy"] = r.policy;
    j["gpus"] = gpus;
    j["variant_seed"] = seed;
    j["variants"] = r.variants;
    j["jct_over_oracle_median"] = r.jct_over_oracle_median;
    j["jct_over_oracle_worst"] = r.jct_over_oracle_worst;
    j["jct_over_exclusive_median"] = r.jct_over_exclusive_median;
    j["jct_over_exclusive_worst"] = r.jct_over_exclusive_worst;
    j["later_fraction_median"] = r.later_fraction_median;
    j["later_fraction_worst"] = r.later_fraction_worst;
    j["beats_firstfit"] = r.beats_firstfit;
    j["beats_iadeep"] = r.beats_iadeep;
    j["worse_than_exclusive"] = r.worse_than_exclusive;
    j["later_than_oracle"] = r.later_than_oracle;
    out += j.dump() + "\n";
  }
  return out;
}

}  // namespace iashim::clustersim
