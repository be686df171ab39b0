#include "number_parse.h"

#include <charconv>
#include <cmath>
#include <system_error>

namespace iashim::fakejob {

std::optional<double> ParseFiniteDouble(absl::string_view token) {
  if (token.empty()) return std::nullopt;
  // from_chars rejects a leading '+'; accept it as people write "+1.5".
  if (token.front() == '+') {
    token.remove_prefix(1);
    if (token.empty() || token.front() == '-') return std::nullopt;
  }
  double value = 0;
  const char* end = token.data() + token.size();
  auto [ptr, ec] = std::from_chars(token.data(), end, value);
  if (ec != std::errc() || ptr != end || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::optional<int64_t> ParseInt64(absl::string_view token) {
  if (token.empty()) return std::nullopt;
  if (token.front() == '+') {
    token.remove_prefix(1);
    if (token.empty() || token.front() == '-') return std::nullopt;
  }
  int64_t value = 0;
  const char* end = token.data() + token.size();
  auto [ptr, ec] = std::from_chars(token.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

}  // namespace iashim::fakejob
