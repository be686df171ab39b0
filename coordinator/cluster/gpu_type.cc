#include "coordinator/cluster/gpu_type.h"

#include <cstddef>

namespace iashim::cluster {
namespace {

bool IsLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// Letters{1,2} digits{1,4} letters{0,2}, the whole word.
bool IsModelWord(std::string_view w) {
  size_t i = 0;
  auto run = [&](bool (*pred)(char), size_t max) {
    const size_t start = i;
    while (i < w.size() && pred(w[i]) && i - start < max) ++i;
    return i - start;
  };
  if (run(IsLetter, 2) == 0) return false;
  if (run(IsDigit, 4) == 0) return false;
  run(IsLetter, 2);
  return i == w.size();
}

std::string Lowercase(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) out.push_back(Lower(c));
  return out;
}

}  // namespace

std::string GpuTypeFromName(std::string_view name) {
  size_t start = 0;
  while (start < name.size()) {
    size_t end = start;
    while (end < name.size() && name[end] != ' ' && name[end] != '-') ++end;
    if (IsModelWord(name.substr(start, end - start))) {
      return Lowercase(name.substr(start, end - start));
    }
    start = end + 1;
  }

  std::string rest = Lowercase(name);
  constexpr std::string_view kVendor = "nvidia";
  if (rest.compare(0, kVendor.size(), kVendor) == 0) rest.erase(0, kVendor.size());
  std::string type;
  for (char c : rest) {
    const bool keep = (c >= 'a' && c <= 'z') || IsDigit(c) || c == '-' || c == '_';
    // A type starts with a letter or digit (the cluster file's rule).
    if (keep && (!type.empty() || (c != '-' && c != '_'))) type.push_back(c);
    if (type.size() == kMaxTypeBytes) break;
  }
  return type.empty() ? "unknown" : type;
}

}  // namespace iashim::cluster
