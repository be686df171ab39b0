#include "bench/gate/table.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"

namespace iashim::gatebench {

void Table::AddRow(std::vector<std::string> cells) {
  cells.resize(header_.size());
  rows_.push_back(std::move(cells));
}

std::string Table::Markdown() const {
  std::vector<size_t> width(header_.size(), 3);  // "---" at least
  auto measure = [&width](const std::vector<std::string>& row) {
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  };
  measure(header_);
  for (const auto& row : rows_) measure(row);
  auto line = [&width](const std::vector<std::string>& row) {
    std::string out = "|";
    for (size_t i = 0; i < row.size(); ++i) {
      out += " " + row[i] + std::string(width[i] - row[i].size(), ' ') + " |";
    }
    return out + "\n";
  };
  std::string out = line(header_);
  std::vector<std::string> rule;
  for (size_t w : width) rule.push_back(std::string(w, '-'));
  out += line(rule);
  for (const auto& row : rows_) out += line(row);
  return out;
}

std::string Fixed(double v, int decimals) {
  if (std::isnan(v)) return "n/a";
  return absl::StrFormat("%.*f", decimals, v);
}

}  // namespace iashim::gatebench
