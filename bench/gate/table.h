// A Markdown table with aligned columns, so the output reads in a terminal
// and pastes into bench/README.md unchanged.
#ifndef IASHIM_BENCH_GATE_TABLE_H_
#define IASHIM_BENCH_GATE_TABLE_H_

#include <string>
#include <vector>

namespace iashim::gatebench {

class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  // Missing cells are blank; extra cells are dropped.
  void AddRow(std::vector<std::string> cells);
  std::string Markdown() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// `v` with `decimals` decimals; "n/a" for NaN (a ratio with nothing under it).
std::string Fixed(double v, int decimals);

}  // namespace iashim::gatebench

#endif  // IASHIM_BENCH_GATE_TABLE_H_
