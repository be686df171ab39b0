#include "simgpu/src/module_image.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <unordered_set>

namespace simgpu {
namespace {

constexpr size_t kMaxImageBytes = 1 << 20;
constexpr size_t kMaxKernels = 65536;
constexpr double kMaxMicros = 60e6;  // one minute per kernel is plenty

std::vector<std::string_view> SplitWords(std::string_view line) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
    if (j > i) words.push_back(line.substr(i, j - i));
    i = j;
  }
  return words;
}

bool ParseDouble(std::string_view s, double* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size() && std::isfinite(*out);
}

bool ValidName(std::string_view name) {
  if (name.empty() || name.size() > 1024) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return c > ' ' && c < 127;
  });
}

}  // namespace

double KernelModel::DurationNs(uint64_t blocks, int sm_count) const {
  const double waves = std::max(1.0, double(blocks) / std::max(1, sm_count));
  return (fixed_us + us_per_block * waves) * 1000.0;
}

float KernelModel::SmFill(uint64_t blocks, int sm_count) {
  return static_cast<float>(std::min(1.0, double(blocks) / std::max(1, sm_count)));
}

bool ParseModuleImage(std::string_view image, std::vector<KernelModel>* kernels,
                      std::string* error) {
  kernels->clear();
  if (image.size() > kMaxImageBytes) {
    *error = "image larger than 1 MiB";
    return false;
  }
  std::unordered_set<std::string> seen;
  bool header = false;
  int line_no = 0;
  size_t pos = 0;
  while (pos < image.size()) {
    size_t nl = image.find('\n', pos);
    if (nl == std::string_view::npos) nl = image.size();
    std::string_view line = image.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    const size_t hash = line.find('#');
    if (hash != std::string_view::npos) line = line.substr(0, hash);
    const std::vector<std::string_view> words = SplitWords(line);
    if (words.empty()) continue;
    auto fail = [&](const std::string& why) {
      *error = "line " + std::to_string(line_no) + ": " + why;
      return false;
    };
    if (!header) {
      if (words.size() != 2 || words[0] != "simgpu-module" || words[1] != "1")
        return fail("expected header 'simgpu-module 1'");
      header = true;
      continue;
    }
    if (words[0] != "kernel") return fail("unknown directive '" + std::string(words[0]) + "'");
    if (words.size() < 2 || !ValidName(words[1])) return fail("kernel needs a printable name");
    KernelModel k;
    k.name = std::string(words[1]);
    if (!seen.insert(k.name).second) return fail("duplicate kernel '" + k.name + "'");
    for (size_t w = 2; w < words.size(); ++w) {
      const size_t eq = words[w].find('=');
      if (eq == std::string_view::npos) return fail("expected key=value, got '" +
                                                    std::string(words[w]) + "'");
      const std::string_view key = words[w].substr(0, eq);
      if (key == "collective") {
        if (words[w].substr(eq + 1) != "allreduce")
          return fail("collective must be 'allreduce', got '" +
                      std::string(words[w].substr(eq + 1)) + "'");
        k.collective = Collective::kAllReduce;
        continue;
      }
      double v = 0;
      if (!ParseDouble(words[w].substr(eq + 1), &v))
        return fail("value of '" + std::string(key) + "' is not a number");
      if (key == "fixed_us" || key == "us_per_block") {
        if (v < 0 || v > kMaxMicros) return fail(std::string(key) + " must be 0..60e6");
        (key == "fixed_us" ? k.fixed_us : k.us_per_block) = v;
      } else if (key == "mem") {
        if (v < 0 || v > 1) return fail("mem must be 0..1");
        k.mem_intensity = static_cast<float>(v);
      } else {
        return fail("unknown key '" + std::string(key) + "'");
      }
    }
    if (kernels->size() >= kMaxKernels) return fail("more than 65536 kernels");
    kernels->push_back(std::move(k));
  }
  if (!header) {
    *error = "empty image (expected header 'simgpu-module 1')";
    return false;
  }
  return true;
}

}  // namespace simgpu
