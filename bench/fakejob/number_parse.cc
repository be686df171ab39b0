#include "bench/fakejob/number_parse.h"

#include <charconv>
#include <cmath>
#include <system_error>
#include <type_traits>

namespace iashim::fakejob {
namespace {

// The whole token as a T, or nullopt. Doubles must also be finite.
template <typename T>
std::optional<T> ParseWhole(absl::string_view token) {
  if (token.empty()) return std::nullopt;
  // from_chars rejects a leading '+'; accept it as people write "+1.5".
  if (token.front() == '+') {
    token.remove_prefix(1);
    if (token.empty() || token.front() == '-') return std::nullopt;
  }
  T value = 0;
  const char* end = token.data() + token.size();
  auto [ptr, ec] = std::from_chars(token.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  if constexpr (std::is_floating_point_v<T>) {
    if (!std::isfinite(value)) return std::nullopt;
  }
  return value;
}

}  // namespace

std::optional<double> ParseFiniteDouble(absl::string_view token) {
  return ParseWhole<double>(token);
}

std::optional<int64_t> ParseInt64(absl::string_view token) { return ParseWhole<int64_t>(token); }

}  // namespace iashim::fakejob
