// Running iashim-fakejob as a process from a test and reading its JSON lines.
#ifndef IASHIM_TESTS_BENCH_FAKEJOB_FAKEJOB_PROCESS_H_
#define IASHIM_TESTS_BENCH_FAKEJOB_FAKEJOB_PROCESS_H_

#include <stdio.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace iashim_test {

// Runs `command` through the shell; its whole output, and its exit status.
struct CommandResult {
  std::string output;
  int status = -1;
};
inline CommandResult RunCommand(const std::string& command) {
  CommandResult r;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[512];
  while (fgets(buf, sizeof(buf), pipe) != nullptr) r.output += buf;
  r.status = pclose(pipe);
  return r;
}

// The number after "key": in a JSON line, or nullopt.
inline std::optional<double> JsonNumber(const std::string& line, const std::string& key) {
  const std::string quoted = "\"" + key + "\": ";
  const size_t at = line.find(quoted);
  if (at == std::string::npos) return std::nullopt;
  return std::strtod(line.c_str() + at + quoted.size(), nullptr);
}

// The summary lines ("summary": true) of a fake job's output, one per rank.
inline std::vector<std::string> SummaryLines(const std::string& output) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < output.size()) {
    size_t end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    const std::string line = output.substr(start, end - start);
    if (line.find("\"summary\": true") != std::string::npos) lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

}  // namespace iashim_test

#endif  // IASHIM_TESTS_BENCH_FAKEJOB_FAKEJOB_PROCESS_H_
