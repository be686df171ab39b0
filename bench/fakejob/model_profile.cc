#include "bench/fakejob/model_profile.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "bench/fakejob/number_parse.h"

namespace iashim::fakejob {
namespace {

// Kernel names go into the module image and the shim's per-kernel tables,
// so keep them to C identifiers: no whitespace, no '=' (the image syntax).
bool IsIdentifier(absl::string_view s) {
  if (s.empty() || s.size() > 200) return false;
  if (!absl::ascii_isalpha(s[0]) && s[0] != '_') return false;
  for (char c : s) {
    if (!absl::ascii_isalnum(c) && c != '_') return false;
  }
  return true;
}

// Collects errors as "file:line: message" so every message names its line.
class Parser {
 public:
  explicit Parser(absl::string_view filename) : filename_(filename) {}

  absl::StatusOr<ModelProfile> Parse(absl::string_view text) {
    // A final newline ends the last line; it does not start another.
    if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
    int line_no = 0;
    for (absl::string_view raw : absl::StrSplit(text, '\n')) {
      ++line_no;
      absl::string_view line = raw;
      if (size_t hash = line.find('#'); hash != absl::string_view::npos) {
        line = line.substr(0, hash);
      }
      line = absl::StripAsciiWhitespace(line);
      if (line.empty()) continue;
      if (absl::Status s = ParseLine(line, line_no); !s.ok()) return s;
    }
    return Finish(line_no);
  }

 private:
  absl::Status Error(int line, absl::string_view message) const {
    return absl::InvalidArgumentError(absl::StrCat(filename_, ":", line, ": ", message));
  }

  absl::Status ParseLine(absl::string_view line, int line_no) {
    std::vector<absl::string_view> tok =
        absl::StrSplit(line, absl::ByAnyChar(" \t\r"), absl::SkipEmpty());
    const absl::string_view key = tok[0];

    if (key == "source:") {
      if (seen_kernel_) return HeaderAfterKernels(key, line_no);
      absl::string_view text = absl::StripAsciiWhitespace(line.substr(7));
      if (text.empty()) return Error(line_no, "'source:' needs a description");
      profile_.sources.emplace_back(text);
      return absl::OkStatus();
    }
    if (key == "model" || key == "batch_size" || key == "memory_bytes" || key == "memory_mib" ||
        key == "host_gap_us" || key == "streams" || key == "gradient_mib") {
      if (seen_kernel_) return HeaderAfterKernels(key, line_no);
      if (tok.size() != 2) {
        return Error(line_no, absl::StrCat("'", key, "' takes exactly one value"));
      }
      return ParseHeader(key, tok[1], line_no);
    }
    if (key == "repeat") return ParseRepeat(tok, line_no);
    if (key == "end") {
      if (tok.size() != 1) return Error(line_no, "'end' takes no value");
      return CloseRepeat(line_no);
    }
    return ParseKernel(tok, line_no);
  }

  absl::Status HeaderAfterKernels(absl::string_view key, int line_no) const {
    return Error(line_no, absl::StrCat("header key '", key, "' after the first kernel line"));
  }

  absl::Status ParseHeader(absl::string_view key, absl::string_view value, int line_no) {
    if (!seen_keys_.insert(std::string(key)).second) {
      return Error(line_no, absl::StrCat("duplicate '", key, "'"));
    }
    auto bad = [&](absl::string_view why) {
      return Error(line_no, absl::StrCat("bad ", key, " '", value, "': ", why));
    };
    if (key == "model") {
      if (!IsIdentifier(value)) return bad("must be an identifier");
      profile_.name = std::string(value);
    } else if (key == "batch_size") {
      std::optional<int64_t> v = ParseInt64(value);
      if (!v || *v < 1 || *v > 1000000) return bad("must be an integer in 1..1000000");
      profile_.batch_size = static_cast<int>(*v);
    } else if (key == "memory_bytes") {
      std::optional<int64_t> v = ParseInt64(value);
      if (!v || *v < 1) return bad("must be a positive integer");
      profile_.memory_bytes = static_cast<uint64_t>(*v);
    } else if (key == "memory_mib") {
      std::optional<double> v = ParseFiniteDouble(value);
      // 16 TiB bound keeps the byte count far from overflow.
      if (!v || *v <= 0 || *v > 16.0 * 1024 * 1024) {
        return bad("must be a positive number of MiB");
      }
      profile_.memory_bytes = static_cast<uint64_t>(std::llround(*v * 1048576.0));
    } else if (key == "host_gap_us") {
      std::optional<double> v = ParseFiniteDouble(value);
      if (!v || *v < 0 || *v > 60e6) return bad("must be in 0..60000000");
      profile_.host_gap_us = *v;
    } else if (key == "gradient_mib") {
      std::optional<double> v = ParseFiniteDouble(value);
      if (!v || *v <= 0 || *v > 1024.0 * 1024) return bad("must be a positive number of MiB");
      profile_.gradient_bytes = static_cast<uint64_t>(std::llround(*v * 1048576.0));
    } else if (key == "streams") {
      std::optional<int64_t> v = ParseInt64(value);
      if (!v || *v < 1 || *v > kMaxStreams) {
        return bad(absl::StrCat("must be 1..", kMaxStreams));
      }
      profile_.streams = static_cast<int>(*v);
    }
    return absl::OkStatus();
  }

  absl::Status ParseRepeat(const std::vector<absl::string_view>& tok, int line_no) {
    if (tok.size() != 2) return Error(line_no, "'repeat' takes exactly one count");
    std::optional<int64_t> n = ParseInt64(tok[1]);
    if (!n || *n < 1 || *n > kMaxLaunchesPerIteration) {
      return Error(line_no, absl::StrCat("bad repeat count '", tok[1], "'"));
    }
    if (static_cast<int>(open_.size()) >= kMaxRepeatDepth) {
      return Error(line_no, absl::StrCat("repeat nested deeper than ", kMaxRepeatDepth));
    }
    open_.push_back({profile_.launches.size(), *n, line_no});
    return absl::OkStatus();
  }

  absl::Status CloseRepeat(int line_no) {
    if (open_.empty()) return Error(line_no, "'end' without 'repeat'");
    OpenRepeat r = open_.back();
    open_.pop_back();
    const size_t body = profile_.launches.size() - r.start;
    if (body == 0) return Error(line_no, "empty repeat block");
    if (absl::Status s = CheckRoom(body * (r.count - 1), line_no); !s.ok()) {
      return s;
    }
    for (int64_t i = 1; i < r.count; ++i) {
      for (size_t j = 0; j < body; ++j) {
        profile_.launches.push_back(profile_.launches[r.start + j]);
      }
    }
    return absl::OkStatus();
  }

  absl::Status CheckRoom(uint64_t more, int line_no) const {
    if (profile_.launches.size() + more > static_cast<uint64_t>(kMaxLaunchesPerIteration)) {
      return Error(line_no, absl::StrCat("iteration expands to more than ",
                                         kMaxLaunchesPerIteration, " launches"));
    }
    return absl::OkStatus();
  }

  absl::Status ParseKernel(const std::vector<absl::string_view>& tok, int line_no) {
    if (tok.size() != 5 && tok.size() != 6) {
      return Error(line_no, absl::StrCat("unknown key '", tok[0],
                                         "' or malformed kernel line (want "
                                         "'<kernel_name> <count> <duration_us> <mem_intensity> "
                                         "<grid_blocks> [stream]')"));
    }
    auto bad = [&](absl::string_view what, absl::string_view value, absl::string_view why) {
      return Error(line_no, absl::StrCat("bad ", what, " '", value, "': ", why));
    };
    if (!IsIdentifier(tok[0])) {
      return bad("kernel name", tok[0], "must be an identifier [A-Za-z_][A-Za-z0-9_]*");
    }
    std::optional<int64_t> count = ParseInt64(tok[1]);
    if (!count || *count < 1 || *count > kMaxLaunchesPerIteration) {
      return bad("count", tok[1], "must be a positive integer");
    }
    std::optional<double> dur = ParseFiniteDouble(tok[2]);
    if (!dur || *dur <= 0 || *dur > 10e6) {
      return bad("duration_us", tok[2], "must be in (0, 10000000]");
    }
    std::optional<double> mem = ParseFiniteDouble(tok[3]);
    if (!mem || *mem < 0 || *mem > 1) {
      return bad("mem_intensity", tok[3], "must be in [0, 1]");
    }
    std::optional<int64_t> grid = ParseInt64(tok[4]);
    if (!grid || *grid < 1 || *grid > 2147483647) {
      return bad("grid_blocks", tok[4], "must be in 1..2147483647");
    }
    int stream = 0;
    if (tok.size() == 6) {
      std::optional<int64_t> s = ParseInt64(tok[5]);
      if (!s || *s < 0 || *s >= kMaxStreams) {
        return bad("stream", tok[5], absl::StrCat("must be 0..", kMaxStreams - 1));
      }
      stream = static_cast<int>(*s);
      max_stream_ = std::max(max_stream_, std::make_pair(stream, line_no));
    }
    if (absl::Status s = CheckRoom(*count, line_no); !s.ok()) return s;
    seen_kernel_ = true;
    KernelLaunch k{std::string(tok[0]), *dur, *mem, static_cast<uint32_t>(*grid), stream, line_no};
    for (int64_t i = 0; i < *count; ++i) profile_.launches.push_back(k);
    return absl::OkStatus();
  }

  absl::StatusOr<ModelProfile> Finish(int last_line) {
    if (!open_.empty()) {
      return Error(open_.back().line, "'repeat' without matching 'end'");
    }
    const int at = last_line > 0 ? last_line : 1;
    if (profile_.name.empty()) return Error(at, "missing 'model <name>'");
    if (profile_.memory_bytes == 0) {
      return Error(at, "missing 'memory_bytes' or 'memory_mib'");
    }
    if (seen_keys_.count("memory_bytes") && seen_keys_.count("memory_mib")) {
      return Error(at, "give only one of 'memory_bytes' and 'memory_mib'");
    }
    if (!seen_keys_.count("host_gap_us")) return Error(at, "missing 'host_gap_us'");
    if (profile_.launches.empty()) return Error(at, "no kernel lines");
    if (max_stream_.first >= profile_.streams) {
      return Error(max_stream_.second, absl::StrCat("stream ", max_stream_.first, " but 'streams ",
                                                    profile_.streams, "'"));
    }
    return std::move(profile_);
  }

  struct OpenRepeat {
    size_t start;
    int64_t count;
    int line;
  };

  std::string filename_;
  ModelProfile profile_;
  std::set<std::string> seen_keys_;
  std::vector<OpenRepeat> open_;
  bool seen_kernel_ = false;
  std::pair<int, int> max_stream_{0, 0};  // (highest stream used, its line)
};

}  // namespace

double ModelProfile::GpuTimeUs() const {
  double sum = 0;
  for (const KernelLaunch& k : launches) sum += k.duration_us;
  return sum;
}

double ModelProfile::SoloIterationUs() const { return GpuTimeUs() + host_gap_us; }

absl::StatusOr<ModelProfile> ParseModelProfile(absl::string_view text, absl::string_view filename) {
  return Parser(filename).Parse(text);
}

absl::StatusOr<ModelProfile> LoadModelProfile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("cannot open model profile '", path, "'"));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    return absl::DataLossError(absl::StrCat("error reading '", path, "'"));
  }
  absl::StatusOr<ModelProfile> profile = ParseModelProfile(text.str(), path);
  if (profile.ok()) profile->path = path;
  return profile;
}

}  // namespace iashim::fakejob
