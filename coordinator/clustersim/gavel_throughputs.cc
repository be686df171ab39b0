#include "coordinator/clustersim/gavel_throughputs.h"

#include <cctype>
#include <charconv>
#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "coordinator/clustersim/read_file.h"
#include "coordinator/clustersim/text.h"
#include "nlohmann/json.hpp"

namespace iashim::clustersim {

std::optional<double> GavelThroughputs::Solo(const JobType& type) const {
  auto it = solo_.find(type);
  if (it == solo_.end()) return std::nullopt;
  return it->second;
}

std::optional<PairThroughput> GavelThroughputs::Pair(const JobType& a, const JobType& b) const {
  auto it = pairs_.find({a, b});
  if (it == pairs_.end()) return std::nullopt;
  return it->second;
}

std::tuple<JobType, JobType, JobType> GavelThroughputs::TripleKey(const JobType& a,
                                                                  const JobType& b,
                                                                  const JobType& c) {
  return b < c ? std::tuple(a, b, c) : std::tuple(a, c, b);
}

std::optional<double> GavelThroughputs::Triple(const JobType& a, const JobType& b,
                                               const JobType& c) const {
  auto it = triples_.find(TripleKey(a, b, c));
  if (it == triples_.end()) return std::nullopt;
  return it->second;
}

void GavelThroughputs::SetTriple(const JobType& a, const JobType& b, const JobType& c,
                                 double a_steps_per_s) {
  triples_[TripleKey(a, b, c)] = a_steps_per_s;
}

std::vector<JobType> GavelThroughputs::Types() const {
  std::vector<JobType> types;
  types.reserve(solo_.size());
  for (const auto& [type, speed] : solo_) types.push_back(type);
  return types;
}

void GavelThroughputs::SetSolo(const JobType& type, double steps_per_s) {
  solo_[type] = steps_per_s;
}

void GavelThroughputs::SetPair(const JobType& a, const JobType& b, double a_steps_per_s,
                               double b_steps_per_s) {
  SetOrderedPair(a, b, {a_steps_per_s, b_steps_per_s});
  SetOrderedPair(b, a, {b_steps_per_s, a_steps_per_s});
}

void GavelThroughputs::SetOrderedPair(const JobType& a, const JobType& b,
                                      PairThroughput steps_per_s) {
  pairs_[{a, b}] = steps_per_s;
}

absl::StatusOr<JobType> ParseJobTypeKey(std::string_view key) {
  const auto bad = [&](std::string_view why) {
    return absl::InvalidArgumentError(
        Cat("job type key \"", key, "\" is not of the form ('<name>', <GPUs>): ", why));
  };
  constexpr std::string_view kOpen = "('";
  constexpr std::string_view kMiddle = "', ";
  if (!key.starts_with(kOpen)) return bad("it must start with (' ");
  if (!key.ends_with(")")) return bad("it must end with )");
  const size_t middle = key.rfind(kMiddle);
  if (middle == std::string_view::npos || middle < kOpen.size()) {
    return bad("no ', between the name and the GPU count");
  }
  JobType type;
  type.name = std::string(key.substr(kOpen.size(), middle - kOpen.size()));
  if (type.name.empty()) return bad("empty name");
  if (type.name.find('\'') != std::string::npos) return bad("quote inside the name");
  const std::string_view digits =
      key.substr(middle + kMiddle.size(), key.size() - 1 - (middle + kMiddle.size()));
  if (digits.empty() || digits.size() > 6) return bad("the GPU count must be 1 to 6 digits");
  for (char c : digits) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return bad("the GPU count is not a number");
  }
  // One spelling per type: "01" would name ('x', 1) a second time.
  if (digits.size() > 1 && digits.front() == '0') return bad("the GPU count has a leading zero");
  std::from_chars(digits.data(), digits.data() + digits.size(), type.scale);
  if (type.scale <= 0) return bad("the GPU count must be positive");
  return type;
}

std::string JobTypeKey(const JobType& type) {
  return Cat("('", type.name, "', ", type.scale, ")");
}

namespace {

// A throughput from the file: a finite number >= 0.
absl::StatusOr<double> Speed(const nlohmann::json& value, std::string_view where) {
  if (!value.is_number()) {
    return absl::InvalidArgumentError(Cat(where, ": ", value.dump(), " is not a number"));
  }
  const double v = value.get<double>();
  if (!std::isfinite(v) || v < 0) {
    return absl::InvalidArgumentError(
        Cat(where, ": ", value.dump(), " is not a finite throughput >= 0"));
  }
  return v;
}

}  // namespace

absl::StatusOr<GavelThroughputs> ParseGavelThroughputs(std::string_view json_text,
                                                       std::string_view gpu_type,
                                                       std::string_view source) {
  const nlohmann::json root = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    return absl::InvalidArgumentError(Cat(source, ": not valid JSON"));
  }
  if (!root.is_object()) {
    return absl::InvalidArgumentError(Cat(source, ": the top level is not an object"));
  }
  auto gpu = root.find(std::string(gpu_type));
  if (gpu == root.end()) {
    std::string known;
    for (const auto& [name, unused] : root.items()) Append(&known, known.empty() ? "" : ", ", name);
    return absl::InvalidArgumentError(Cat(source, ": no GPU type \"", gpu_type,
                                                   "\" (the file has: ", known, ")"));
  }
  if (!gpu->is_object()) {
    return absl::InvalidArgumentError(
        Cat(source, ": \"", gpu_type, "\" is not an object of job types"));
  }
  GavelThroughputs out;
  for (const auto& [key, entry] : gpu->items()) {
    const std::string where = Cat(source, ": ", gpu_type, " ", key);
    absl::StatusOr<JobType> type = ParseJobTypeKey(key);
    if (!type.ok()) return absl::InvalidArgumentError(Cat(source, ": ", type.status().message()));
    if (!entry.is_object()) return absl::InvalidArgumentError(Cat(where, ": not an object"));
    auto solo = entry.find("null");
    if (solo == entry.end()) {
      return absl::InvalidArgumentError(
          Cat(where, ": no \"null\" entry (the job's solo throughput)"));
    }
    absl::StatusOr<double> solo_speed = Speed(*solo, Cat(where, " \"null\""));
    if (!solo_speed.ok()) return solo_speed.status();
    // A solo throughput of 0 is how the file says a type was not measured on
    // this GPU type (k80 has one): its jobs are skipped, as for a missing type.
    if (*solo_speed == 0) continue;
    out.SetSolo(*type, *solo_speed);
    for (const auto& [other_key, pair] : entry.items()) {
      if (other_key == "null") continue;
      const std::string pair_where = Cat(where, " with ", other_key);
      absl::StatusOr<JobType> other = ParseJobTypeKey(other_key);
      if (!other.ok()) {
        return absl::InvalidArgumentError(Cat(where, ": ", other.status().message()));
      }
      if (!pair.is_array() || pair.size() != 2) {
        return absl::InvalidArgumentError(
            Cat(pair_where, ": ", pair.dump(), " is not [this job, other job]"));
      }
      absl::StatusOr<double> mine = Speed(pair[0], pair_where);
      if (!mine.ok()) return mine.status();
      absl::StatusOr<double> theirs = Speed(pair[1], pair_where);
      if (!theirs.ok()) return theirs.status();
      if (*mine == 0 && *theirs == 0) continue;  // not run together: cannot share
      if (*mine == 0 || *theirs == 0) {
        return absl::InvalidArgumentError(Cat(
            pair_where, ": ", pair.dump(), " has one zero; only [0, 0] means not run together"));
      }
      out.SetOrderedPair(*type, *other, {*mine, *theirs});
    }
  }
  // Optional: three jobs on one GPU, [job, other, other, the job's steps/s].
  const std::string triples_key = Cat(gpu_type, " triples");
  auto triples = root.find(triples_key);
  if (triples == root.end()) return out;
  if (!triples->is_array()) {
    return absl::InvalidArgumentError(Cat(source, ": \"", triples_key, "\" is not an array"));
  }
  for (const nlohmann::json& t : *triples) {
    const std::string where = Cat(source, ": ", triples_key, " ", t.dump());
    if (!t.is_array() || t.size() != 4 || !t[0].is_string() || !t[1].is_string() ||
        !t[2].is_string()) {
      return absl::InvalidArgumentError(
          Cat(where, ": not [job, other, other, the job's steps/s]"));
    }
    JobType types[3];
    for (int i = 0; i < 3; ++i) {
      absl::StatusOr<JobType> type = ParseJobTypeKey(t[i].get<std::string>());
      if (!type.ok()) return absl::InvalidArgumentError(Cat(where, ": ", type.status().message()));
      types[i] = *std::move(type);
    }
    absl::StatusOr<double> speed = Speed(t[3], where);
    if (!speed.ok()) return speed.status();
    out.SetTriple(types[0], types[1], types[2], *speed);
  }
  return out;
}

absl::StatusOr<GavelThroughputs> ReadGavelThroughputsFile(const std::string& path,
                                                          std::string_view gpu_type) {
  absl::StatusOr<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return text.status();
  return ParseGavelThroughputs(*text, gpu_type, path);
}

}  // namespace iashim::clustersim
