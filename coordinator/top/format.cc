#include "coordinator/top/format.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"

namespace iashim::top {

bool Known(double v) { return std::isfinite(v) && v >= 0; }

namespace {

// The power of 1024 to show `max_bytes` in: the largest whose value, rounded
// to one decimal, stays below 1024 (so 1023.97 KiB shows as 1.0 MiB, not as
// a five-digit "1024.0 KiB").
int UnitIndex(uint64_t max_bytes) {
  int k = 0;
  double v = static_cast<double>(max_bytes);
  while (k < 6 && v >= 1023.95) {
    v /= 1024.0;
    ++k;
  }
  return k;
}

double Scaled(uint64_t bytes, int k) { return static_cast<double>(bytes) / std::pow(1024.0, k); }

// A scaled byte count in at most 4 characters: one decimal below 100, none
// for plain bytes (k == 0), which are whole.
std::string CompactNumber(double v, int k) {
  return k > 0 && v < 99.95 ? absl::StrFormat("%.1f", v) : absl::StrFormat("%.0f", v);
}

constexpr const char* kLongUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
constexpr char kShortUnits[] = {'B', 'K', 'M', 'G', 'T', 'P', 'E'};

}  // namespace

std::string FormatAge(double seconds) {
  if (!Known(seconds)) return "-";
  if (seconds < 9.95) return absl::StrFormat("%.1fs", seconds);
  if (seconds < 59.5) return absl::StrFormat("%.0fs", seconds);
  // From 59.5 s: "1m", never "0m" or "60s".
  if (seconds < 3600) return absl::StrFormat("%dm", std::max(1, static_cast<int>(seconds / 60)));
  if (seconds < 86400) return absl::StrFormat("%dh", static_cast<int>(seconds / 3600));
  if (seconds < 100 * 86400.0) return absl::StrFormat("%dd", static_cast<int>(seconds / 86400));
  return ">99d";
}

std::string FormatUptime(double seconds) {
  if (!Known(seconds)) return "-";
  if (seconds >= 1e9) return ">30y";  // keeps the integer conversion below in range
  const int64_t s = static_cast<int64_t>(seconds);
  if (s < 60) return absl::StrFormat("%ds", s);
  if (s < 3600) return absl::StrFormat("%dm%02ds", s / 60, s % 60);
  if (s < 86400) return absl::StrFormat("%dh%02dm", s / 3600, s % 3600 / 60);
  return absl::StrFormat("%dd%02dh", s / 86400, s % 86400 / 3600);
}

std::string FormatBytes(uint64_t bytes) {
  const int k = UnitIndex(bytes);
  if (k == 0) return absl::StrFormat("%d B", bytes);
  return absl::StrFormat("%.1f %s", Scaled(bytes, k), kLongUnits[k]);
}

std::string FormatBytesPair(uint64_t used, uint64_t total) {
  const int k = UnitIndex(std::max(used, total));
  if (k == 0) return absl::StrFormat("%d/%d B", used, total);
  return absl::StrFormat("%.1f/%.1f %s", Scaled(used, k), Scaled(total, k), kLongUnits[k]);
}

std::string FormatMemCompact(uint64_t used, uint64_t quota) {
  if (quota == 0) {
    const int k = UnitIndex(used);
    return absl::StrFormat("%s%c/-", CompactNumber(Scaled(used, k), k), kShortUnits[k]);
  }
  const int k = UnitIndex(std::max(used, quota));
  return absl::StrFormat("%s/%s%c", CompactNumber(Scaled(used, k), k),
                         CompactNumber(Scaled(quota, k), k), kShortUnits[k]);
}

std::string FormatPercent(double fraction) {
  if (!Known(fraction)) return "-";
  return absl::StrFormat("%.1f", std::min(fraction * 100.0, 999.9));
}

std::string FormatRate(double per_second) {
  if (!Known(per_second)) return "-";
  if (per_second < 9.95) return absl::StrFormat("%.1f", per_second);
  if (per_second < 9999.5) return absl::StrFormat("%.0f", per_second);
  if (per_second < 999950.0) return absl::StrFormat("%.1fk", per_second / 1e3);
  if (per_second < 999.95e6) return absl::StrFormat("%.1fM", per_second / 1e6);
  if (per_second < 999.95e9) return absl::StrFormat("%.1fG", per_second / 1e9);
  return ">999G";
}

std::string FormatShare(double share) {
  if (!Known(share)) return "-";
  return absl::StrFormat("%.2f", std::min(share, 9.99));
}

std::string FormatSlowdown(double slowdown) {
  if (!Known(slowdown)) return "-";
  const double percent = slowdown * 100.0;
  if (percent >= 9999.5) return ">9999%";
  return absl::StrFormat("+%.0f%%", percent);
}

std::string ShortCommand(std::string_view command) {
  const size_t start = command.find_first_not_of(' ');
  if (start == std::string_view::npos) return "";
  command.remove_prefix(start);
  const size_t end = std::min(command.find(' '), command.size());
  const size_t slash = command.substr(0, end).rfind('/');
  // "/dir/" (a trailing slash) has no base name to show: keep it whole.
  if (slash == std::string_view::npos || slash + 1 == end) return std::string(command);
  return std::string(command.substr(slash + 1));
}

std::string Truncate(std::string_view text, size_t width) {
  if (text.size() <= width) return std::string(text);
  if (width == 0) return "";
  return std::string(text.substr(0, width - 1)) + "~";
}

std::string Printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_sequence = false;  // inside a UTF-8 multi-byte character
  for (char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if (b >= 0x20 && b < 0x7f) {
      out.push_back(c);
      in_sequence = false;
    } else if ((b & 0xc0) == 0x80 && in_sequence) {
      // A continuation byte: already shown as the "?" of its lead byte.
    } else {
      out.push_back('?');
      in_sequence = b >= 0xc0;
    }
  }
  return out;
}

}  // namespace iashim::top
