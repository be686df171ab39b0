// Keeps simgpu's interference model calibrated against Gavel's V100 measurements:
// over every pair of the bundled model profiles (each profile replayed as
// iashim-fakejob does, in virtual time on the device model), the median job must
// keep about 0.68 of its solo throughput and the median pair must sum to about
// 1.37 solo-equivalents, as Gavel measured on V100 (bench/data/gavel/README.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

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
}

}  // namespace
