#include "common/text/text.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <ctime>

namespace iashim {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

std::optional<uint64_t> ParseByteSize(std::string_view text) {
  text = Trim(text);
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0) return std::nullopt;
  uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + digits, value);
  if (ec != std::errc()) return std::nullopt;
  const std::string_view unit = Trim(text.substr(digits));
  struct Unit {
    const char* name;
    uint64_t factor;
  };
  static constexpr Unit kUnits[] = {
      {"", 1},
      {"B", 1},
      {"KiB", 1ULL << 10},
      {"MiB", 1ULL << 20},
      {"GiB", 1ULL << 30},
      {"TiB", 1ULL << 40},
      {"KB", 1000ULL},
      {"MB", 1000'000ULL},
      {"GB", 1000'000'000ULL},
      {"TB", 1000'000'000'000ULL},
  };
  for (const Unit& u : kUnits) {
    if (EqualsIgnoreCase(unit, u.name)) {
      if (value > UINT64_MAX / u.factor) return std::nullopt;
      return value * u.factor;
    }
  }
  return std::nullopt;
}

std::optional<int64_t> ParseInt(std::string_view text, int64_t min, int64_t max) {
  text = Trim(text);
  if (text.empty()) return std::nullopt;
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  if (value < min || value > max) return std::nullopt;
  return value;
}

std::optional<double> ParseDouble(std::string_view text, double min, double max) {
  text = Trim(text);
  if (text.empty()) return std::nullopt;
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value,
                                   std::chars_format::general);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  if (!(value >= min && value <= max)) return std::nullopt;  // also rejects NaN
  return value;
}

std::string FormatJoules(double joules) {
  if (!std::isfinite(joules) || joules < 0) return "-";
  char buf[32];
  if (joules < 10) {
    std::snprintf(buf, sizeof buf, "%.2f", joules);
  } else if (joules < 100) {
    std::snprintf(buf, sizeof buf, "%.1f", joules);
  } else if (joules < 9999.5) {
    std::snprintf(buf, sizeof buf, "%.0f", joules);
  } else if (joules < 999'950) {
    std::snprintf(buf, sizeof buf, "%.1fk", joules / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.1fM", std::min(joules / 1e6, 99'999.0));
  }
  return buf;
}

std::string FormatBytes(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  char buf[32];
  if (unit == 0) {
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  } else {
    std::snprintf(buf, sizeof buf, "%.1f %s", value, kUnits[unit]);
  }
  return buf;
}

std::string Printable(std::string_view text, size_t max_bytes) {
  std::string out(text.substr(0, max_bytes));
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return out;
}

std::string FormatUtcTime(int64_t unix_ns) {
  constexpr int64_t kNsPerS = 1'000'000'000;
  int64_t seconds = unix_ns / kNsPerS;
  int64_t ns = unix_ns % kNsPerS;
  if (ns < 0) {  // before 1970: the millisecond still counts up within its second
    ns += kNsPerS;
    --seconds;
  }
  const time_t t = static_cast<time_t>(seconds);
  tm utc{};
  if (gmtime_r(&t, &utc) == nullptr) return "?";
  char text[48];
  const size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(text + n, sizeof text - n, ".%03dZ", static_cast<int>(ns / 1'000'000));
  return text;
}

}  // namespace iashim
