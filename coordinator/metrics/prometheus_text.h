// Builds the Prometheus text exposition format, version 0.0.4
// (https://prometheus.io/docs/instrumenting/exposition_formats/), which is
// what GET /metrics serves. Only what the coordinator exports: gauges and
// counters, labels, no timestamps, no histograms.
//
// Misuse is not silently rendered: a scrape with a bad name, a family
// declared twice or a series repeated is rejected whole by Prometheus, so
// the builder reports the first such mistake from Finish() instead.
#ifndef IASHIM_COORDINATOR_METRICS_PROMETHEUS_TEXT_H_
#define IASHIM_COORDINATOR_METRICS_PROMETHEUS_TEXT_H_

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace iashim::metrics {

struct Label {
  std::string_view name;
  std::string_view value;  // any bytes: escaped, and invalid UTF-8 replaced
};

// [a-zA-Z_:][a-zA-Z0-9_:]*, the data model's rule.
bool ValidMetricName(std::string_view name);
// [a-zA-Z_][a-zA-Z0-9_]*, not starting with "__" (reserved for Prometheus).
bool ValidLabelName(std::string_view name);

// A label value between double quotes: \ " and newline escaped as \\ \" \n.
std::string EscapeLabelValue(std::string_view value);
// HELP text: \ and newline escaped as \\ and \n.
std::string EscapeHelp(std::string_view help);
// "3", "-0.25", "1e+21", "NaN", "+Inf", "-Inf": integers without a fraction,
// others in the shortest form that reads back to the same double.
std::string FormatSampleValue(double value);

// Usage:
//   ExpositionBuilder b;
//   b.Gauge("iashim_gpu_memory_used_bytes", "Memory used on a GPU.");
//   b.Sample({{"host", "gpu-01"}, {"gpu", "0"}}, 1.5e9);
//   b.Counter("iashim_messages_dropped_total", "Invalid messages dropped.");
//   b.Sample(3);
//   absl::StatusOr<std::string> text = std::move(b).Finish();
class ExpositionBuilder {
 public:
  enum class Type { kGauge, kCounter };

  // Starts a family: its "# HELP" and "# TYPE" lines. Samples that follow
  // belong to it. Counter names must end in "_total", as Prometheus's naming
  // rules ask, so that the name says it is a running total.
  void Family(std::string_view name, Type type, std::string_view help);
  void Gauge(std::string_view name, std::string_view help) { Family(name, Type::kGauge, help); }
  void Counter(std::string_view name, std::string_view help) { Family(name, Type::kCounter, help); }

  // A sample of the family started last, labels in the given order. A
  // counter's value must be a non-negative number (or +Inf).
  void Sample(const std::vector<Label>& labels, double value);
  void Sample(double value) { Sample(std::vector<Label>{}, value); }

  // The exposition, or the first mistake (InvalidArgument, naming the metric).
  absl::StatusOr<std::string> Finish() &&;

 private:
  void Fail(std::string message);

  absl::Status error_;
  std::string text_;
  std::string family_;  // the family samples go to; empty before the first
  Type type_ = Type::kGauge;
  std::set<std::string> families_;
  std::set<std::string> series_;  // label sets of the current family
};

}  // namespace iashim::metrics

#endif  // IASHIM_COORDINATOR_METRICS_PROMETHEUS_TEXT_H_
