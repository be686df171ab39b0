#include "coordinator/clustersim/gavel_trace.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "coordinator/clustersim/read_file.h"
#include "coordinator/clustersim/text.h"

namespace iashim::clustersim {
namespace {

constexpr int kFields = 7;

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
}

// A positive decimal integer of at most 15 digits (exact in a double too).
bool ParsePositive(std::string_view s, int64_t* out) {
  if (!AllDigits(s) || s.size() > 15) return false;
  std::from_chars(s.data(), s.data() + s.size(), *out);
  return *out > 0;
}

// A plain decimal number >= 0 ("11", "11.000000"); no sign, exponent, inf or nan.
bool ParseArrival(std::string_view s, double* out) {
  if (s.empty() || s.size() > 40) return false;
  int dots = 0;
  for (char c : s) {
    if (c == '.') {
      ++dots;
    } else if (!std::isdigit(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  if (dots > 1 || s == ".") return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size() && std::isfinite(*out);
}

}  // namespace

absl::StatusOr<std::vector<TraceJob>> ParseGavelTrace(std::string_view text,
                                                      std::string_view source,
                                                      std::string_view stem) {
  std::vector<TraceJob> jobs;
  if (text.ends_with('\n')) text.remove_suffix(1);
  if (text.empty()) return jobs;
  int line_number = 0;
  for (std::string_view line : Split(text, '\n')) {
    ++line_number;
    const auto bad = [&](std::string_view why) {
      return absl::InvalidArgumentError(Cat(source, ":", line_number, ": ", why));
    };
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (line.empty()) return bad("empty line");
    const std::vector<std::string_view> f = Split(line, '\t');
    if (f.size() != kFields) {
      return bad(Cat(f.size(), " tab-separated fields, expected ", kFields,
                              " (job_type command num_steps_arg needs_data_dir total_steps "
                              "arrival_time_s scale_factor)"));
    }
    TraceJob job;
    job.id = Cat(stem, ":", line_number);
    job.type.name = std::string(f[0]);
    if (job.type.name.empty()) return bad("job_type (field 1) is empty");
    if (f[3] != "0" && f[3] != "1") {
      return bad(Cat("needs_data_dir (field 4) is \"", f[3], "\", not 0 or 1"));
    }
    if (!ParsePositive(f[4], &job.total_steps)) {
      return bad(Cat("total_steps (field 5) is \"", f[4], "\", not a positive integer"));
    }
    if (!ParseArrival(f[5], &job.arrival_s)) {
      return bad(Cat("arrival_time_s (field 6) is \"", f[5],
                              "\", not a finite number >= 0"));
    }
    int64_t scale = 0;
    if (!ParsePositive(f[6], &scale) || scale > 1'000'000) {
      return bad(Cat("scale_factor (field 7) is \"", f[6],
                              "\", not a positive integer GPU count"));
    }
    job.type.scale = static_cast<int>(scale);
    jobs.push_back(std::move(job));
  }
  return jobs;
}

absl::StatusOr<std::vector<TraceJob>> ReadGavelTraceFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return text.status();
  return ParseGavelTrace(*text, path, std::filesystem::path(path).stem().string());
}

absl::StatusOr<std::vector<TraceJob>> ReadGavelTraces(std::span<const std::string> paths) {
  std::vector<TraceJob> all;
  std::vector<std::string> stems;
  for (const std::string& path : paths) {
    // Job ids are "<stem>:<line>", so two files with one stem would collide.
    std::string stem = std::filesystem::path(path).stem().string();
    if (std::find(stems.begin(), stems.end(), stem) != stems.end()) {
      return absl::InvalidArgumentError(Cat(
          path, ": another trace file named \"", stem, "\" was already given (job ids would clash)"));
    }
    stems.push_back(std::move(stem));
    absl::StatusOr<std::vector<TraceJob>> jobs = ReadGavelTraceFile(path);
    if (!jobs.ok()) return jobs.status();
    for (TraceJob& j : *jobs) all.push_back(std::move(j));
  }
  // Stable: equal arrivals keep file and line order.
  std::stable_sort(all.begin(), all.end(), [](const TraceJob& a, const TraceJob& b) {
    return a.arrival_s < b.arrival_s;
  });
  return all;
}

}  // namespace iashim::clustersim
