#include "coordinator/cluster/cluster_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "common/text/text.h"
#include "coordinator/cluster/gpu_type.h"

namespace iashim::cluster {
namespace {

// The longest names NVML hands out (NVML_DEVICE_NAME_V2_BUFFER_SIZE and
// NVML_DEVICE_UUID_V2_BUFFER_SIZE, less the terminating NUL): a longer value
// cannot have come from a driver.
constexpr size_t kMaxNameBytes = 95;
constexpr size_t kMaxUuidBytes = 95;
constexpr size_t kMaxHostBytes = 253;  // a DNS name

bool IsAsciiAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// Host names as CUDA_VISIBLE_DEVICES-style tools and Slurm spell them: DNS
// labels plus '_' (seen in the wild), starting with a letter or digit.
bool ValidHost(std::string_view host) {
  if (host.empty() || host.size() > kMaxHostBytes || !IsAsciiAlnum(host.front())) return false;
  for (char c : host) {
    if (!IsAsciiAlnum(c) && c != '.' && c != '-' && c != '_') return false;
  }
  return true;
}

// Types key interference data, so one spelling per type: lowercase only.
bool ValidType(std::string_view type) {
  if (type.empty() || type.size() > kMaxTypeBytes) return false;
  if (!((type.front() >= 'a' && type.front() <= 'z') ||
        (type.front() >= '0' && type.front() <= '9')))
    return false;
  for (char c : type) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    if (!ok) return false;
  }
  return true;
}

// "GPU-" and hex digits with dashes, as nvidia-smi -L prints them.
bool ValidUuid(std::string_view uuid) {
  if (uuid.size() <= 4 || uuid.size() > kMaxUuidBytes || uuid.substr(0, 4) != "GPU-") return false;
  for (char c : uuid.substr(4)) {
    const bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    if (!hex && c != '-') return false;
  }
  return true;
}

// Splits a line into whitespace-separated tokens. Double quotes let a value
// hold spaces or '#' (a driver name such as "Tesla V100-SXM2-32GB"); inside
// them \" and \\ are the only escapes. '#' outside quotes starts a comment.
absl::Status Tokenize(std::string_view line, std::vector<std::string>* tokens) {
  tokens->clear();
  std::string current;
  bool in_token = false;
  bool in_quotes = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_quotes) {
      if (c == '"') {
        in_quotes = false;
      } else if (c == '\\') {
        if (i + 1 == line.size()) break;  // reported as unterminated below
        const char next = line[++i];
        if (next != '"' && next != '\\') {
          return absl::InvalidArgumentError(absl::StrCat("unknown escape '\\", std::string(1, next),
                                                         "' in quotes (only \\\" and \\\\)"));
        }
        current.push_back(next);
      } else {
        current.push_back(c);
      }
      continue;
    }
    if (c == '#') break;
    if (c == ' ' || c == '\t') {
      if (in_token) tokens->push_back(std::move(current));
      current.clear();
      in_token = false;
      continue;
    }
    in_token = true;
    if (c == '"') {
      in_quotes = true;
    } else {
      current.push_back(c);
    }
  }
  if (in_quotes) return absl::InvalidArgumentError("unterminated quote");
  if (in_token) tokens->push_back(std::move(current));
  return absl::OkStatus();
}

// Reads the file line by line, remembering enough to name the first
// definition in a duplicate error.
class Parser {
 public:
  explicit Parser(std::string_view source) : source_(source) {}

  absl::Status Line(int number, std::string_view line) {
    line_ = number;
    if (line.size() > kMaxLineBytes) {
      return Error(absl::StrCat("line is longer than ", kMaxLineBytes, " bytes"));
    }
    for (char c : line) {
      const auto u = static_cast<unsigned char>(c);
      if ((u < 0x20 && c != '\t') || u == 0x7f) {
        return Error(absl::StrFormat("control character 0x%02x", u));
      }
    }
    std::vector<std::string> tokens;
    if (absl::Status s = Tokenize(line, &tokens); !s.ok()) return Error(s.message());
    if (tokens.empty()) return absl::OkStatus();
    if (tokens[0] == "node") return NodeLine(tokens);
    if (tokens[0] == "gpu") return GpuLine(tokens);
    return Error(absl::StrCat("unknown keyword '", tokens[0], "' (expected 'node' or 'gpu')"));
  }

  absl::StatusOr<policy::Cluster> Finish() {
    if (absl::Status s = CheckLastNodeHasGpus(); !s.ok()) return s;
    if (nodes_.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(source_, ": defines no GPUs (expected a 'node NAME' line followed by ",
                       "'gpu INDEX TYPE MEMORY' lines)"));
    }
    return std::move(cluster_);
  }

 private:
  struct Node {
    std::string name;
    int line = 0;
    std::map<int, int> gpu_lines;  // index -> line that defined it
  };

  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(source_, ":", line_, ": ", what));
  }

  absl::Status CheckLastNodeHasGpus() const {
    if (nodes_.empty() || !nodes_.back().gpu_lines.empty()) return absl::OkStatus();
    // Reported at the node's line: that is where the operator looks.
    return absl::InvalidArgumentError(absl::StrCat(source_, ":", nodes_.back().line, ": node '",
                                                   nodes_.back().name, "' has no 'gpu' lines"));
  }

  absl::Status NodeLine(const std::vector<std::string>& tokens) {
    if (tokens.size() < 2) return Error("'node' needs a NAME (the node's host name)");
    if (tokens.size() > 2) {
      return Error(absl::StrCat("unexpected '", tokens[2], "' after the node name"));
    }
    const std::string& name = tokens[1];
    if (!ValidHost(name)) {
      return Error(absl::StrCat("invalid node name '", name,
                                "': use a host name (letters, digits, '.', '-', '_', at most ",
                                kMaxHostBytes, ")"));
    }
    if (auto it = node_lines_.find(name); it != node_lines_.end()) {
      return Error(absl::StrCat("node '", name, "' is already defined at line ", it->second));
    }
    if (absl::Status s = CheckLastNodeHasGpus(); !s.ok()) return s;
    node_lines_.emplace(name, line_);
    nodes_.push_back(Node{name, line_, {}});
    return absl::OkStatus();
  }

  // INDEX or FIRST-LAST, each in [0, kMaxGpuIndex].
  absl::Status ParseIndexRange(const std::string& text, int* first, int* last) const {
    const std::string usage =
        absl::StrCat("invalid GPU index '", text, "': expected an integer 0..", kMaxGpuIndex,
                     " or a range such as 0-7");
    const size_t dash = text.find('-', 1);
    const std::string_view a = std::string_view(text).substr(0, dash);
    std::optional<int64_t> lo = ParseInt(a, 0, kMaxGpuIndex);
    std::optional<int64_t> hi = lo;
    if (dash != std::string::npos)
      hi = ParseInt(std::string_view(text).substr(dash + 1), 0, kMaxGpuIndex);
    if (!lo || !hi || Trim(text) != text) return Error(usage);
    if (*lo > *hi) return Error(absl::StrCat("GPU range '", text, "' is empty (FIRST > LAST)"));
    *first = static_cast<int>(*lo);
    *last = static_cast<int>(*hi);
    return absl::OkStatus();
  }

  absl::Status ParseMemory(const std::string& text, uint64_t* bytes) const {
    std::optional<uint64_t> parsed = ParseByteSize(text);
    if (!parsed) {
      // "80G" is the likeliest typo, and guessing would be wrong one way or
      // the other by 7%: say which spellings mean what.
      const char last = text.empty() ? '\0' : text.back();
      if (text.size() > 1 && text.find_first_not_of("0123456789") == text.size() - 1 &&
          std::string_view("KkMmGgTt").find(last) != std::string_view::npos) {
        const std::string digits = text.substr(0, text.size() - 1);
        const char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(last)));
        return Error(absl::StrCat("ambiguous memory size '", text, "': write ", digits,
                                  std::string(1, unit), "iB (binary) or ", digits,
                                  std::string(1, unit), "B (decimal)"));
      }
      return Error(absl::StrCat("invalid memory size '", text,
                                "': expected a number with a unit such as 32GiB or 80GB, or a "
                                "byte count"));
    }
    if (*parsed < kMinGpuMemoryBytes || *parsed > kMaxGpuMemoryBytes) {
      static_assert(kMinGpuMemoryBytes == uint64_t{256} << 20 && kMaxGpuMemoryBytes == uint64_t{16}
                                                                                           << 40);
      return Error(
          absl::StrCat("memory size '", text, "' is outside 256MiB..16TiB; is the unit right?"));
    }
    *bytes = *parsed;
    return absl::OkStatus();
  }

  absl::Status GpuLine(const std::vector<std::string>& tokens) {
    if (nodes_.empty()) return Error("'gpu' line before any 'node' line");
    Node& node = nodes_.back();

    // Positional fields first; the optional ones are key=value.
    static constexpr const char* kPositional[] = {"INDEX", "TYPE", "MEMORY"};
    size_t positional = 1;
    while (positional < tokens.size() && positional <= 3 &&
           tokens[positional].find('=') == std::string::npos) {
      ++positional;
    }
    if (positional < 4) {
      // "MEMORY", "TYPE and MEMORY", "INDEX, TYPE and MEMORY".
      std::string missing;
      for (size_t i = positional - 1; i < 3; ++i) {
        const char* separator = missing.empty() ? "" : (i == 2 ? " and " : ", ");
        absl::StrAppend(&missing, separator, kPositional[i]);
      }
      return Error(
          absl::StrCat("'gpu' line is missing ", missing,
                       " (expected 'gpu INDEX TYPE MEMORY [name=\"...\"] [uuid=GPU-...]')"));
    }

    int first = 0;
    int last = 0;
    if (absl::Status s = ParseIndexRange(tokens[1], &first, &last); !s.ok()) return s;
    const std::string& type = tokens[2];
    if (!ValidType(type)) {
      return Error(absl::StrCat("invalid GPU type '", type,
                                "': use lowercase letters, digits, '-' and '_', such as v100 or "
                                "a100"));
    }
    uint64_t memory = 0;
    if (absl::Status s = ParseMemory(tokens[3], &memory); !s.ok()) return s;

    std::optional<std::string> name;
    std::optional<std::string> uuid;
    for (size_t i = 4; i < tokens.size(); ++i) {
      const std::string& token = tokens[i];
      const size_t eq = token.find('=');
      if (eq == std::string::npos) {
        return Error(absl::StrCat("unexpected '", token,
                                  "' after MEMORY (optional fields are name=\"...\" and "
                                  "uuid=GPU-...)"));
      }
      const std::string key = token.substr(0, eq);
      std::string value = token.substr(eq + 1);
      std::optional<std::string>* slot = nullptr;
      if (key == "name") {
        slot = &name;
      } else if (key == "uuid") {
        slot = &uuid;
      } else {
        return Error(absl::StrCat("unknown field '", key, "=' (expected name= or uuid=)"));
      }
      if (slot->has_value()) return Error(absl::StrCat("'", key, "=' is given twice"));
      if (value.empty()) return Error(absl::StrCat("'", key, "=' is empty"));
      *slot = std::move(value);
    }
    if (name && name->size() > kMaxNameBytes) {
      return Error(absl::StrCat("name is longer than ", kMaxNameBytes, " bytes"));
    }
    if (uuid) {
      if (!ValidUuid(*uuid)) {
        return Error(absl::StrCat("invalid uuid '", *uuid,
                                  "': expected GPU- and hex digits, as nvidia-smi -L prints"));
      }
      if (first != last) {
        return Error("uuid= cannot be given for a range of GPUs (each GPU has its own)");
      }
      if (auto it = uuid_lines_.find(*uuid); it != uuid_lines_.end()) {
        return Error(absl::StrCat("uuid '", *uuid, "' is already used at line ", it->second));
      }
    }

    for (int index = first; index <= last; ++index) {
      if (auto it = node.gpu_lines.find(index); it != node.gpu_lines.end()) {
        return Error(absl::StrCat("GPU ", index, " of node '", node.name,
                                  "' is already defined at line ", it->second));
      }
    }
    if (cluster_.gpus.size() + static_cast<size_t>(last - first + 1) > kMaxGpus) {
      return Error(absl::StrCat("more than ", kMaxGpus, " GPUs in the file"));
    }
    if (uuid) uuid_lines_.emplace(*uuid, line_);
    for (int index = first; index <= last; ++index) {
      node.gpu_lines.emplace(index, line_);
      policy::GpuInfo gpu;
      gpu.id = policy::GpuId{node.name, index};
      gpu.type = type;
      gpu.name = name.value_or("");
      gpu.uuid = uuid.value_or("");
      gpu.memory_bytes = memory;
      cluster_.gpus.push_back(std::move(gpu));
    }
    return absl::OkStatus();
  }

  std::string source_;
  int line_ = 0;
  std::vector<Node> nodes_;
  std::map<std::string, int> node_lines_;
  std::map<std::string, int> uuid_lines_;
  policy::Cluster cluster_;
};

}  // namespace

absl::StatusOr<policy::Cluster> ParseClusterText(std::string_view text, std::string_view source) {
  Parser parser(source);
  int number = 0;
  while (!text.empty()) {
    ++number;
    const size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    // Files edited on Windows end lines with CRLF; the CR means nothing here.
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (absl::Status s = parser.Line(number, line); !s.ok()) return s;
  }
  return parser.Finish();
}

absl::StatusOr<policy::Cluster> ReadClusterFile(std::string_view path) {
  const std::string p(path);
  auto failure = [&p](int err) {
    const std::string message =
        absl::StrCat("cannot read cluster file '", p, "': ", std::strerror(err));
    if (err == ENOENT) return absl::NotFoundError(message);
    if (err == EACCES) return absl::PermissionDeniedError(message);
    return absl::FailedPreconditionError(message);
  };
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return failure(errno);
  std::string text;
  char buffer[64 * 1024];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;  // EISDIR for a directory
      ::close(fd);
      return failure(err);
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
    if (text.size() > kMaxFileBytes) {
      ::close(fd);
      return absl::FailedPreconditionError(absl::StrCat("cluster file '", p, "' is larger than ",
                                                        FormatBytes(kMaxFileBytes),
                                                        "; is it the right file?"));
    }
  }
  ::close(fd);
  return ParseClusterText(text, p);
}

}  // namespace iashim::cluster
