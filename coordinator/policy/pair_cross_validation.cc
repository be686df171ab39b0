#include "coordinator/policy/pair_cross_validation.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "coordinator/policy/hash.h"
#include "coordinator/policy/median.h"
#include "coordinator/policy/pair_table.h"

namespace iashim::policy {
namespace {

PredictorScore Score(std::vector<double> errors) {
  PredictorScore s;
  if (errors.empty()) return s;
  double sum = 0;
  for (double e : errors) sum += e;
  s.mean_abs_error = sum / static_cast<double>(errors.size());
  // Nearest rank.
  const size_t rank = static_cast<size_t>(std::ceil(0.9 * static_cast<double>(errors.size())));
  std::nth_element(errors.begin(), errors.begin() + (rank - 1), errors.end());
  s.p90_abs_error = errors[rank - 1];
  return s;
}

// The unordered kinds of a measurement: (a, b) and (b, a) listed separately
// are one pair and must share a fold, or the table would be shown its test.
std::string UnorderedKey(const PairMeasurement& m) {
  const std::string& x = std::min(m.a.kind, m.b.kind);
  const std::string& y = std::max(m.a.kind, m.b.kind);
  std::string key = x;
  key.push_back('\0');
  key.append(y);
  return key;
}

}  // namespace

CrossValidationResult CrossValidatePairs(std::span<const PairMeasurement> pairs, int folds,
                                         uint64_t seed,
                                         const InterferenceModel::Options& options) {
  CrossValidationResult result;
  // Group measurements by unordered pair, in order of first appearance.
  absl::flat_hash_map<std::string, int> group_of;
  std::vector<int> group(pairs.size());
  int groups = 0;
  for (size_t i = 0; i < pairs.size(); ++i) {
    auto [it, inserted] = group_of.try_emplace(UnorderedKey(pairs[i]), groups);
    if (inserted) ++groups;
    group[i] = it->second;
  }
  if (folds < 2 || folds > groups) return result;

  // A seeded shuffle of the groups, dealt round-robin: folds differ in size
  // by at most one group.
  std::vector<int> order(groups);
  for (int g = 0; g < groups; ++g) order[g] = g;
  uint64_t state = seed;
  for (int i = groups; i > 1; --i) {
    state += 0x9e3779b97f4a7c15ULL;
    std::swap(order[i - 1], order[Mix64(state) % static_cast<uint64_t>(i)]);
  }
  std::vector<int> fold_of_group(groups);
  for (int i = 0; i < groups; ++i) fold_of_group[order[i]] = i % folds;

  std::vector<double> model_errors, median_errors, table_errors;
  for (int fold = 0; fold < folds; ++fold) {
    InterferenceModel model(options);
    PairTable table(options.prior_mean);
    std::vector<double> training;
    for (size_t i = 0; i < pairs.size(); ++i) {
      if (fold_of_group[group[i]] == fold) continue;
      const PairMeasurement& m = pairs[i];
      model.Observe(m.a, m.b, m.a_norm, m.b_norm);
      table.Observe(m.a, m.b, m.a_norm, m.b_norm);
      if (!m.a.kind.empty() && !m.b.kind.empty()) {
        // Same acceptance as the predictors': a value not usable is neither learned nor scored.
        if (UsableNormalisedThroughput(m.a_norm)) training.push_back(m.a_norm);
        if (UsableNormalisedThroughput(m.b_norm)) training.push_back(m.b_norm);
      }
    }
    const double median = training.empty() ? options.prior_mean : Median(training);
    auto score = [&](const JobTraits& victim, const JobTraits& aggressor, double actual) {
      if (victim.kind.empty() || aggressor.kind.empty() || !UsableNormalisedThroughput(actual)) return;
      model_errors.push_back(std::abs(model.Predict(victim, aggressor).throughput - actual));
      median_errors.push_back(std::abs(median - actual));
      table_errors.push_back(std::abs(table.Predict(victim, aggressor).throughput - actual));
    };
    for (size_t i = 0; i < pairs.size(); ++i) {
      if (fold_of_group[group[i]] != fold) continue;
      const PairMeasurement& m = pairs[i];
      score(m.a, m.b, m.a_norm);
      score(m.b, m.a, m.b_norm);
    }
  }
  result.folds = folds;
  result.pairs = groups;
  result.predictions = static_cast<int64_t>(model_errors.size());
  result.model = Score(std::move(model_errors));
  result.median = Score(std::move(median_errors));
  result.table = Score(std::move(table_errors));
  return result;
}

}  // namespace iashim::policy
