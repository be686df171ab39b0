#include "coordinator/metrics/prometheus_text.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include "absl/strings/ascii.h"

namespace iashim::metrics {
namespace {

bool IsLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// The length of the valid UTF-8 sequence at s[i], or 0 if there is none
// (overlong forms, surrogates and code points past U+10FFFF are invalid).
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return 1;
  struct Lead {
    unsigned char first, last;  // range of the lead byte
    size_t length;
    uint32_t min;  // smallest code point of this length (no overlong forms)
  };
  static constexpr Lead kLeads[] = {
      {0xC2, 0xDF, 2, 0x80}, {0xE0, 0xEF, 3, 0x800}, {0xF0, 0xF4, 4, 0x10000}};
  const Lead* lead = nullptr;
  for (const Lead& l : kLeads) {
    if (b0 >= l.first && b0 <= l.last) lead = &l;
  }
  if (lead == nullptr) return 0;
  const size_t n = lead->length;
  const uint32_t min = lead->min;
  uint32_t cp = b0 & (0x7F >> n);
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

// Prometheus rejects a whole scrape over one invalid UTF-8 byte, and label
// values come from outside (job names, host names): replace, don't fail.
// `escape_quote` distinguishes label values from HELP text.
std::string Escape(std::string_view in, bool escape_quote) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size();) {
    const size_t n = Utf8SequenceLength(in, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
      ++i;
      continue;
    }
    const char c = in[i];
    if (n == 1 && c == '\\') {
      out += "\\\\";
    } else if (n == 1 && c == '\n') {
      out += "\\n";
    } else if (n == 1 && c == '"' && escape_quote) {
      out += "\\\"";
    } else {
      out.append(in.substr(i, n));
    }
    i += n;
  }
  return out;
}

}  // namespace

bool ValidMetricName(std::string_view name) {
  if (name.empty() || absl::ascii_isdigit(name.front())) return false;
  for (char c : name) {
    if (!IsLetter(c) && !absl::ascii_isdigit(c) && c != '_' && c != ':') return false;
  }
  return true;
}

bool ValidLabelName(std::string_view name) {
  if (name.empty() || absl::ascii_isdigit(name.front()) || name.substr(0, 2) == "__") return false;
  for (char c : name) {
    if (!IsLetter(c) && !absl::ascii_isdigit(c) && c != '_') return false;
  }
  return true;
}

std::string EscapeLabelValue(std::string_view value) { return Escape(value, true); }

std::string EscapeHelp(std::string_view help) { return Escape(help, false); }

std::string FormatSampleValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  // Below 2^53 every integer is exact: print counts as counts ("3", not "3e+00").
  constexpr double kExactIntegers = 9007199254740992.0;
  if (value == std::trunc(value) && std::fabs(value) < kExactIntegers) {
    return std::to_string(static_cast<int64_t>(value));  // also turns -0 into "0"
  }
  char buffer[64];
  const std::to_chars_result r = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, r.ptr);
}

void ExpositionBuilder::Fail(std::string message) {
  if (error_.ok()) error_ = absl::InvalidArgumentError(std::move(message));
}

void ExpositionBuilder::Family(std::string_view name, Type type, std::string_view help) {
  if (!error_.ok()) return;
  const std::string n(name);
  if (!ValidMetricName(name)) {
    return Fail("invalid metric name '" + n + "': use [a-zA-Z_:][a-zA-Z0-9_:]*");
  }
  constexpr std::string_view kTotal = "_total";
  if (type == Type::kCounter &&
      (name.size() <= kTotal.size() || name.substr(name.size() - kTotal.size()) != kTotal)) {
    return Fail("counter '" + n + "' must end in _total");
  }
  if (!families_.insert(n).second) {
    // Prometheus rejects a scrape whose families are not contiguous.
    return Fail("metric '" + n + "' is declared twice");
  }
  family_ = n;
  type_ = type;
  series_.clear();
  text_ += "# HELP " + n + " " + EscapeHelp(help) + "\n";
  text_ += "# TYPE " + n + (type == Type::kCounter ? " counter\n" : " gauge\n");
}

void ExpositionBuilder::Sample(const std::vector<Label>& labels, double value) {
  if (!error_.ok()) return;
  if (family_.empty()) return Fail("sample before any metric was declared");
  if (type_ == Type::kCounter && (std::isnan(value) || value < 0)) {
    return Fail("counter '" + family_ + "' has the value " + FormatSampleValue(value) +
                "; counters are never negative or NaN");
  }
  std::string series;
  std::map<std::string_view, std::string_view> sorted;  // the series' identity
  for (const Label& label : labels) {
    const std::string name(label.name);
    if (!ValidLabelName(label.name)) {
      return Fail("metric '" + family_ + "': invalid label name '" + name +
                  "': use [a-zA-Z_][a-zA-Z0-9_]*, not starting with __");
    }
    if (!sorted.emplace(label.name, label.value).second) {
      return Fail("metric '" + family_ + "': label '" + name + "' is given twice");
    }
    series += series.empty() ? "{" : ",";
    series += name + "=\"" + EscapeLabelValue(label.value) + "\"";
  }
  if (!series.empty()) series += "}";
  // Label order does not make another series: compare them sorted by name.
  std::string key;
  for (const auto& [label_name, label_value] : sorted) {
    key.append(label_name).append(1, '\0').append(label_value).append(1, '\0');
  }
  if (!series_.insert(std::move(key)).second) {
    return Fail("metric '" + family_ + "': series " + (series.empty() ? "{}" : series) +
                " is given twice");
  }
  text_ += family_ + series + " " + FormatSampleValue(value) + "\n";
}

absl::StatusOr<std::string> ExpositionBuilder::Finish() && {
  if (!error_.ok()) return error_;
  return std::move(text_);
}

}  // namespace iashim::metrics
