#include "simgpu/src/interference_model.h"

namespace simgpu {

double PairPenalty(const RunningItem& a, const RunningItem& b, const InterferenceParams& p) {
  const bool a_copy = a.kind == OpKind::kCopy;
  const bool b_copy = b.kind == OpKind::kCopy;
  if (a_copy || b_copy) return (a_copy && b_copy) ? p.copy : 0.0;
  const double ca = 1.0 - a.mem_intensity;
  const double cb = 1.0 - b.mem_intensity;
  double phi = double(a.sm_fill) * double(b.sm_fill) *
               (p.compute * ca * cb + p.memory * double(a.mem_intensity) * b.mem_intensity);
  if (a.process != b.process) phi += p.context_switch;
  return phi;
}

void ComputeRates(std::span<const RunningItem> items, std::span<double> rates,
                  const InterferenceParams& p) {
  for (size_t i = 0; i < items.size(); ++i) {
    double slowdown = 1.0;
    for (size_t j = 0; j < items.size(); ++j) {
      if (i != j) slowdown += PairPenalty(items[i], items[j], p);
    }
    rates[i] = 1.0 / slowdown;
  }
}

}  // namespace simgpu
