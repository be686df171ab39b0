#include "coordinator/clustersim/alibaba_trace.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>
#include <system_error>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "coordinator/clustersim/text.h"

namespace iashim::clustersim {
namespace {

constexpr std::string_view kNodesHeader = "sn,cpu_milli,memory_mib,gpu,model";
constexpr std::string_view kPodsHeader =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time";
constexpr std::string_view kShortPodsHeader = "name,cpu_milli,memory_mib,num_gpu,gpu_milli";

// One line's location, for errors.
struct Where {
  std::string_view source;
  int line = 0;

  absl::Status Error(std::string_view field, std::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat(Av(source), ":", line, ": field ", Av(field), ": ", Av(what)));
  }
  absl::Status LineError(std::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(Av(source), ":", line, ": ", Av(what)));
  }
};

// Decimal digits only (no sign, no spaces), within [lo, hi].
absl::Status ParseInt(const Where& at, std::string_view field, std::string_view s, int64_t lo,
                      int64_t hi, int64_t* out) {
  const auto bad = [&] {
    return at.Error(field, absl::StrCat("'", Av(s), "' is not an integer in ", lo, "..", hi));
  };
  if (s.empty() || s.front() < '0' || s.front() > '9') return bad();
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < lo || v > hi) return bad();
  *out = v;
  return absl::OkStatus();
}

// A name: non-empty, printable, no spaces (the fields are identifiers).
absl::Status CheckName(const Where& at, std::string_view field, std::string_view s) {
  if (s.empty()) return at.Error(field, "is empty");
  for (char c : s) {
    if (c <= ' ' || c > '~') {
      return at.Error(field, absl::StrCat("'", Av(s), "' has a space or unprintable character"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckOneOf(const Where& at, std::string_view field, std::string_view s,
                        std::initializer_list<std::string_view> allowed) {
  std::string names;
  for (std::string_view a : allowed) {
    if (s == a) return absl::OkStatus();
    absl::StrAppend(&names, names.empty() ? "" : ", ", Av(a));
  }
  return at.Error(field, absl::StrCat("'", Av(s), "' is not one of ", names));
}

// Splits `text` into lines, checks the header, and calls `row` with each data
// line's location and fields (exactly `columns` of them).
template <typename Row>
absl::Status ForEachRow(std::string_view text, std::string_view source, std::string_view header,
                        size_t columns, Row row) {
  if (text.empty()) return absl::InvalidArgumentError(absl::StrCat(Av(source), ": empty file"));
  std::vector<std::string_view> lines = Split(text, '\n');
  if (lines.back().empty()) lines.pop_back();  // the final newline
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const Where at{source, static_cast<int>(i + 1)};
    if (i == 0) {
      if (line != header) {
        return at.LineError(
            absl::StrCat("header is '", Av(line), "'; expected '", Av(header), "'"));
      }
      continue;
    }
    if (line.empty()) return at.LineError("blank line");
    if (line.find('"') != std::string_view::npos) {
      return at.LineError("quoted fields are not supported");
    }
    const std::vector<std::string_view> fields = Split(line, ',');
    if (fields.size() != columns) {
      return at.LineError(absl::StrCat(fields.size(), " fields; expected ", columns));
    }
    if (absl::Status s = row(at, fields); !s.ok()) return s;
  }
  if (lines.size() < 2) return absl::InvalidArgumentError(absl::StrCat(Av(source), ": no rows"));
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat("cannot read ", path));
  return std::move(text).str();
}

constexpr int64_t kMaxTime = int64_t{1} << 50;  // seconds; far past any trace
constexpr int64_t kMaxAmount = int64_t{1} << 40;

}  // namespace

absl::StatusOr<std::vector<AlibabaNode>> ParseAlibabaNodes(std::string_view text,
                                                           std::string_view source) {
  std::vector<AlibabaNode> nodes;
  absl::flat_hash_set<std::string> seen;
  const absl::Status status = ForEachRow(
      text, source, kNodesHeader, 5,
      [&](const Where& at, const std::vector<std::string_view>& f) -> absl::Status {
        AlibabaNode n;
        if (absl::Status s = CheckName(at, "sn", f[0]); !s.ok()) return s;
        n.sn = std::string(f[0]);
        if (!seen.insert(n.sn).second) return at.Error("sn", absl::StrCat("'", n.sn, "' repeats"));
        int64_t gpus = 0;
        if (absl::Status s = ParseInt(at, "cpu_milli", f[1], 0, kMaxAmount, &n.cpu_milli); !s.ok())
          return s;
        if (absl::Status s = ParseInt(at, "memory_mib", f[2], 0, kMaxAmount, &n.memory_mib);
            !s.ok())
          return s;
        if (absl::Status s = ParseInt(at, "gpu", f[3], 1, kMaxGpusPerNode, &gpus); !s.ok())
          return s;
        n.gpus = static_cast<int>(gpus);
        if (absl::Status s = CheckName(at, "model", f[4]); !s.ok()) return s;
        n.model = std::string(f[4]);
        nodes.push_back(std::move(n));
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  return nodes;
}

namespace {

// The five fields every pod list has: name, cpu_milli, memory_mib, num_gpu,
// gpu_milli (`seen`: the names so far, which must not repeat).
absl::Status ParsePodRequest(const Where& at, const std::vector<std::string_view>& f,
                             absl::flat_hash_set<std::string>* seen, AlibabaPod* out) {
  AlibabaPod& p = *out;
  if (absl::Status s = CheckName(at, "name", f[0]); !s.ok()) return s;
  p.name = std::string(f[0]);
  if (!seen->insert(p.name).second) {
    return at.Error("name", absl::StrCat("'", p.name, "' repeats"));
  }
  if (absl::Status s = ParseInt(at, "cpu_milli", f[1], 0, kMaxAmount, &p.cpu_milli); !s.ok())
    return s;
  if (absl::Status s = ParseInt(at, "memory_mib", f[2], 0, kMaxAmount, &p.memory_mib); !s.ok())
    return s;
  int64_t num_gpu = 0;
  int64_t gpu_milli = 0;
  if (absl::Status s = ParseInt(at, "num_gpu", f[3], 0, kMaxGpusPerNode, &num_gpu); !s.ok())
    return s;
  if (absl::Status s = ParseInt(at, "gpu_milli", f[4], 0, 1000, &gpu_milli); !s.ok()) return s;
  // The replay maps these onto placement requests; a combination it
  // could only guess at is an error, not a silent guess.
  if (num_gpu == 0 && gpu_milli != 0) {
    return at.Error("gpu_milli", absl::StrCat("is ", gpu_milli, " but num_gpu is 0"));
  }
  if (num_gpu == 1 && gpu_milli == 0) {
    return at.Error("gpu_milli", "is 0 but num_gpu is 1");
  }
  if (num_gpu > 1 && gpu_milli != 1000) {
    return at.Error("gpu_milli", absl::StrCat("is ", gpu_milli, " with num_gpu ", num_gpu,
                                              "; a multi-GPU pod must ask whole GPUs (1000)"));
  }
  p.num_gpu = static_cast<int>(num_gpu);
  p.gpu_milli = static_cast<int>(gpu_milli);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<AlibabaPod>> ParseAlibabaPods(std::string_view text,
                                                         std::string_view source) {
  std::vector<AlibabaPod> pods;
  absl::flat_hash_set<std::string> seen;
  // A list of requests only (the ATC'23 repository's other pod lists): fill
  // mode needs no times, specs or classes.
  if (text.substr(0, text.find_first_of("\r\n")) == kShortPodsHeader) {
    const absl::Status status =
        ForEachRow(text, source, kShortPodsHeader, 5,
                   [&](const Where& at, const std::vector<std::string_view>& f) -> absl::Status {
                     AlibabaPod p;
                     if (absl::Status s = ParsePodRequest(at, f, &seen, &p); !s.ok()) return s;
                     p.has_times = false;
                     pods.push_back(std::move(p));
                     return absl::OkStatus();
                   });
    if (!status.ok()) return status;
    return pods;
  }
  const absl::Status status = ForEachRow(
      text, source, kPodsHeader, 11,
      [&](const Where& at, const std::vector<std::string_view>& f) -> absl::Status {
        AlibabaPod p;
        if (absl::Status s = ParsePodRequest(at, f, &seen, &p); !s.ok()) return s;
        if (!f[5].empty()) {
          for (std::string_view model : Split(f[5], '|')) {
            if (absl::Status s = CheckName(at, "gpu_spec", model); !s.ok()) return s;
            p.gpu_spec.emplace_back(model);
          }
        }
        if (absl::Status s = CheckOneOf(at, "qos", f[6], {"LS", "BE", "Burstable", "Guaranteed"});
            !s.ok())
          return s;
        p.qos = std::string(f[6]);
        if (absl::Status s =
                CheckOneOf(at, "pod_phase", f[7], {"Running", "Pending", "Succeeded", "Failed"});
            !s.ok())
          return s;
        p.phase = std::string(f[7]);
        if (absl::Status s = ParseInt(at, "creation_time", f[8], 0, kMaxTime, &p.creation_s);
            !s.ok())
          return s;
        if (absl::Status s =
                ParseInt(at, "deletion_time", f[9], p.creation_s, kMaxTime, &p.deletion_s);
            !s.ok())
          return s;
        if (!f[10].empty()) {
          int64_t scheduled = 0;
          if (absl::Status s =
                  ParseInt(at, "scheduled_time", f[10], p.creation_s, p.deletion_s, &scheduled);
              !s.ok())
            return s;
          p.scheduled_s = scheduled;
        }
        pods.push_back(std::move(p));
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  return pods;
}

absl::StatusOr<std::vector<AlibabaNode>> ReadAlibabaNodesFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  return ParseAlibabaNodes(*text, path);
}

absl::StatusOr<std::vector<AlibabaPod>> ReadAlibabaPodsFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  return ParseAlibabaPods(*text, path);
}

}  // namespace iashim::clustersim
