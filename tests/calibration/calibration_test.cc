// Keeps simgpu's interference model calibrated against Gavel's V100 measurements:
// over every pair of the bundled model profiles (each profile replayed as
// iashim-fakejob does, in virtual time on the device model), the median job must
// keep about 0.68 of its solo throughput and the median pair must sum to about
// 1.37 solo-equivalents, as Gavel measured on V100 (bench/data/gavel/README.md).
// Also prints the spread of the kept fractions (10th and 90th percentiles)
// beside the spread of every V100 pair Gavel measured, which issue 18 asks to
// cover (each within 0.05).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "coordinator/clustersim/gavel_throughputs.h"
#include "tests/bench/fakejob/profile_virtual_job.h"
#include "tests/calibration/gavel_pairs.h"

namespace {

constexpr double kGavelMedianJob = 0.68;
constexpr double kGavelMedianPairSum = 1.37;
constexpr double kSeconds = 12.0;
constexpr double kWarmup = 2.0;

std::vector<std::string> BundledModels() {
  std::vector<std::string> names;
  const auto profiles = iashim_test::BundledProfiles(IASHIM_SOURCE_DIR);
  if (profiles.ok()) {
    for (const auto& [name, gavel_key] : *profiles) names.push_back(name);
  }
  return names;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The q-quantile (0..1) of v, interpolated between order statistics.
double Percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double at = q * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(at);
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (at - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

// Every kept fraction in Gavel's V100 table: each single-GPU job type next to
// each (itself included), both directions; pairs that did not fit are left out.
std::vector<double> GavelKeptFractions() {
  std::vector<double> kept;
  auto gavel = iashim::clustersim::ReadGavelThroughputsFile(
      std::string(IASHIM_SOURCE_DIR) + "/bench/data/gavel/simulation_throughputs.json", "v100");
  if (!gavel.ok()) return kept;
  std::vector<iashim::clustersim::JobType> types;
  for (const auto& t : gavel->Types()) {
    if (t.scale == 1) types.push_back(t);
  }
  for (size_t a = 0; a < types.size(); ++a) {
    for (size_t b = a; b < types.size(); ++b) {
      const auto pair = gavel->Pair(types[a], types[b]);
      const auto solo_a = gavel->Solo(types[a]);
      const auto solo_b = gavel->Solo(types[b]);
      if (!pair || !solo_a || !solo_b || *solo_a <= 0 || *solo_b <= 0) continue;
      kept.push_back(pair->a / *solo_a);
      kept.push_back(pair->b / *solo_b);
    }
  }
  return kept;
}

TEST(InterferenceCalibration, BundledPairsMatchGavelV100) {
  const simgpu::DeviceSpec spec = iashim_test::DefaultV100();
  const simgpu::InterferenceParams params;
  std::vector<std::string> names = BundledModels();
  ASSERT_GE(names.size(), 6u);
  std::vector<simgpu::VirtualJob> jobs;
  std::vector<double> solo;
  for (const std::string& name : names) {
    auto profile = iashim::fakejob::LoadModelProfile(std::string(IASHIM_SOURCE_DIR) +
                                                     "/bench/data/models/" + name + ".model");
    ASSERT_TRUE(profile.ok()) << profile.status();
    jobs.push_back(iashim_test::ToVirtualJob(*profile, spec.sm_count));
    solo.push_back(simgpu::CoSimulate({jobs.back()}, spec, kSeconds, kWarmup, params)[0]);
    // Alone, the device model reproduces the profile's own iteration time
    // (less, where kernels on two streams overlap).
    const double iteration_us = 1e6 / solo.back();
    if (profile->streams == 1) {
      EXPECT_NEAR(iteration_us, profile->SoloIterationUs(), 0.02 * profile->SoloIterationUs())
          << name;
    } else {
      EXPECT_LE(iteration_us, profile->SoloIterationUs() * 1.02) << name;
      EXPECT_GE(iteration_us, profile->SoloIterationUs() * 0.8) << name;
    }
  }
  std::vector<double> normalized, sums;
  std::printf("%-12s %-12s %8s %8s %8s\n", "job A", "job B", "A kept", "B kept", "sum");
  for (size_t a = 0; a < jobs.size(); ++a) {
    for (size_t b = a; b < jobs.size(); ++b) {
      const std::vector<double> r = simgpu::CoSimulate({jobs[a], jobs[b]}, spec, kSeconds,
                                                       kWarmup, params);
      const double ka = r[0] / solo[a];
      const double kb = r[1] / solo[b];
      EXPECT_GT(ka, 0.0);
      EXPECT_LE(ka, 1.0 + 1e-9);
      EXPECT_GT(kb, 0.0);
      EXPECT_LE(kb, 1.0 + 1e-9);
      normalized.push_back(ka);
      normalized.push_back(kb);
      sums.push_back(ka + kb);
      std::printf("%-12s %-12s %8.3f %8.3f %8.3f\n", names[a].c_str(), names[b].c_str(), ka, kb,
                  ka + kb);
    }
  }
  const double median_job = Median(normalized);
  const double median_sum = Median(sums);
  std::printf("median job keeps %.3f (Gavel v100 %.2f); median pair sums to %.3f (Gavel %.2f)\n",
              median_job, kGavelMedianJob, median_sum, kGavelMedianPairSum);
  EXPECT_NEAR(median_job, kGavelMedianJob, 0.06);
  EXPECT_NEAR(median_sum, kGavelMedianPairSum, 0.12);

  const std::vector<double> gavel = GavelKeptFractions();
  ASSERT_GE(gavel.size(), 200u);  // Gavel's v100 table has ~330 single-GPU pairs
  const double g10 = Percentile(gavel, 0.1), g90 = Percentile(gavel, 0.9);
  const double s10 = Percentile(normalized, 0.1), s90 = Percentile(normalized, 0.9);
  std::printf("kept fraction, 10th-90th percentile: simgpu %.2f-%.2f over %zu values, Gavel v100 "
              "%.2f-%.2f over %zu (issue 18's goal: each within 0.05)\n",
              s10, s90, normalized.size(), g10, g90, gavel.size());
  EXPECT_LT(g10, g90);
  // Today's symmetric model keeps every job near the median: a narrow spread.
  // A model change moves this; the bound is here so the change is seen.
  EXPECT_LT(s90 - s10, g90 - g10);
}

}  // namespace
