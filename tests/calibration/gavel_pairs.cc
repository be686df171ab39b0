#include "tests/calibration/gavel_pairs.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "coordinator/clustersim/gavel_throughputs.h"
#include "tests/bench/fakejob/profile_virtual_job.h"

namespace iashim_test {

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> BundledProfiles(
    const std::string& source_dir) {
  absl::StatusOr<std::vector<iashim::predict::MappedProfile>> read =
      iashim::predict::ReadGavelMap(source_dir + "/bench/data/models/gavel_map.txt");
  if (!read.ok()) return read.status();
  std::vector<std::pair<std::string, std::string>> mapped;
  for (iashim::predict::MappedProfile& m : *read) {
    mapped.emplace_back(std::move(m.model), std::move(m.gavel_key));
  }
  return mapped;
}

absl::StatusOr<std::vector<DirectedPair>> CompareWithGavel(const std::string& source_dir,
                                                           const simgpu::InterferenceParams& params,
                                                           double seconds, double warmup_s) {
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> mapped =
      BundledProfiles(source_dir);
  if (!mapped.ok()) return mapped.status();
  std::erase_if(*mapped, [](const auto& profile) { return profile.second.empty(); });
  absl::StatusOr<iashim::clustersim::GavelThroughputs> gavel =
      iashim::clustersim::ReadGavelThroughputsFile(
          source_dir + "/bench/data/gavel/simulation_throughputs.json", "v100");
  if (!gavel.ok()) return gavel.status();
  const simgpu::DeviceSpec spec = DefaultV100();
  std::vector<iashim::clustersim::JobType> types;
  std::vector<simgpu::VirtualJob> jobs;
  std::vector<double> solo;
  for (const auto& [model, key] : *mapped) {
    absl::StatusOr<iashim::clustersim::JobType> type = iashim::clustersim::ParseJobTypeKey(key);
    if (!type.ok()) return type.status();
    absl::StatusOr<iashim::fakejob::ModelProfile> profile = iashim::fakejob::LoadModelProfile(
        source_dir + "/bench/data/models/" + model + ".model");
    if (!profile.ok()) return profile.status();
    types.push_back(*type);
    jobs.push_back(ToVirtualJob(*profile, spec.sm_count));
    solo.push_back(simgpu::CoSimulate({jobs.back()}, spec, seconds, warmup_s, params)[0]);
  }
  std::vector<DirectedPair> pairs;
  for (size_t a = 0; a < jobs.size(); ++a) {
    for (size_t b = a + 1; b < jobs.size(); ++b) {
      const std::optional<double> solo_a = gavel->Solo(types[a]);
      const std::optional<double> solo_b = gavel->Solo(types[b]);
      const std::optional<iashim::clustersim::PairThroughput> measured =
          gavel->Pair(types[a], types[b]);
      if (!solo_a || !solo_b || !measured) continue;
      const std::vector<double> sim =
          simgpu::CoSimulate({jobs[a], jobs[b]}, spec, seconds, warmup_s, params);
      const std::string& name_a = (*mapped)[a].first;
      const std::string& name_b = (*mapped)[b].first;
      pairs.push_back({name_a, name_b, measured->a / *solo_a, sim[0] / solo[a]});
      pairs.push_back({name_b, name_a, measured->b / *solo_b, sim[1] / solo[b]});
    }
  }
  return pairs;
}

double MeanAbsError(std::span<const DirectedPair> pairs) {
  double sum = 0;
  for (const DirectedPair& p : pairs) sum += std::abs(p.simgpu - p.gavel);
  return pairs.empty() ? 0 : sum / static_cast<double>(pairs.size());
}

std::vector<HeldOutModel> LeaveOneModelOut(
    const std::vector<std::vector<DirectedPair>>& evaluated) {
  std::vector<HeldOutModel> folds;
  if (evaluated.empty()) return folds;
  std::vector<std::string> models;
  for (const DirectedPair& p : evaluated[0]) {
    for (const std::string& m : {p.victim, p.aggressor}) {
      if (std::find(models.begin(), models.end(), m) == models.end()) models.push_back(m);
    }
  }
  for (const std::string& held : models) {
    HeldOutModel fold{held, 0, std::numeric_limits<double>::infinity(), 0};
    for (size_t i = 0; i < evaluated.size(); ++i) {
      std::vector<DirectedPair> train;
      for (const DirectedPair& p : evaluated[i]) {
        if (p.victim != held && p.aggressor != held) train.push_back(p);
      }
      const double mae = MeanAbsError(train);
      if (mae < fold.fit_mae) {
        fold.fit_mae = mae;
        fold.params_index = i;
      }
    }
    std::vector<DirectedPair> test;
    for (const DirectedPair& p : evaluated[fold.params_index]) {
      if (p.victim == held || p.aggressor == held) test.push_back(p);
    }
    fold.held_out_mae = MeanAbsError(test);
    folds.push_back(fold);
  }
  return folds;
}

double LeaveOneOutError(const std::vector<HeldOutModel>& folds) {
  double sum = 0;
  for (const HeldOutModel& f : folds) sum += f.held_out_mae;
  return folds.empty() ? 0 : sum / double(folds.size());
}

}  // namespace iashim_test
