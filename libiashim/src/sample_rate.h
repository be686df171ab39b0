// How often to time a launch with CUDA events so that the timing costs under
// 1% of the process's time: with R launches per second and C nanoseconds of
// CPU per sampled launch, sampling 1 in N costs R*C/N ns per second, so
// N >= R*C / (0.01 * 1e9). Never below the configured minimum.
#ifndef IASHIM_SAMPLE_RATE_H_
#define IASHIM_SAMPLE_RATE_H_

#include <cstdint>

namespace iashim {

inline constexpr double kSamplingBudget = 0.01;
inline constexpr uint32_t kMaxSampleEvery = 1u << 20;

uint32_t ChooseSampleEvery(double launches_per_second, double cost_ns_per_sample,
                           uint32_t minimum);

}  // namespace iashim

#endif  // IASHIM_SAMPLE_RATE_H_
