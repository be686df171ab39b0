#include "bench/fakejob/throughput_meter.h"

#include "absl/strings/str_cat.h"
#include "bench/fakejob/module_image.h"

namespace iashim::fakejob {

std::vector<SecondReport> ThroughputMeter::AddIteration(double end_s, double iter_s) {
  std::vector<SecondReport> out;
  // An iteration ending exactly on t belongs to the window that ends at t.
  while (static_cast<double>(next_t_) < end_s) {
    SecondReport r;
    r.t = static_cast<double>(next_t_);
    r.iters = window_iters_;
    r.iters_per_s = static_cast<double>(window_iters_);  // 1-second window
    if (window_iters_ > 0) {
      r.iter_ms = 1000.0 * window_iter_s_ / static_cast<double>(window_iters_);
    }
    out.push_back(r);
    window_iters_ = 0;
    window_iter_s_ = 0;
    ++next_t_;
  }
  ++window_iters_;
  window_iter_s_ += iter_s;
  ++total_iters_;
  return out;
}

std::string SecondReportJson(const SecondReport& r, std::optional<int> rank) {
  return absl::StrCat("{", rank ? absl::StrCat("\"rank\": ", *rank, ", ") : "",
                      "\"t\": ", FormatFixed(r.t, 1),
                      ", \"iters_per_s\": ", FormatFixed(r.iters_per_s, 3),
                      ", \"iter_ms\": ", r.iter_ms ? FormatFixed(*r.iter_ms, 3) : "null", "}");
}

std::string SummaryJson(const Summary& s) {
  const double ips = s.seconds > 0 ? static_cast<double>(s.iters) / s.seconds : 0.0;
  const std::string iter_ms =
      s.iters > 0 ? FormatFixed(1000.0 * s.seconds / static_cast<double>(s.iters), 3) : "null";
  return absl::StrCat(
      "{\"summary\": true, \"model\": \"", s.model, "\", \"iters\": ", s.iters,
      ", \"seconds\": ", FormatFixed(s.seconds, 3), ", \"iters_per_s\": ", FormatFixed(ips, 3),
      ", \"iter_ms\": ", iter_ms, ", \"gpu_ms\": ", FormatFixed(s.gpu_ms_mean, 3),
      ", \"launches\": ", s.launches,
      s.rank ? absl::StrCat(", \"rank\": ", *s.rank, ", \"world_size\": ", s.world_size) : "",
      s.resumed ? absl::StrCat(", \"resumed\": ", *s.resumed) : "", "}");
}

}  // namespace iashim::fakejob
