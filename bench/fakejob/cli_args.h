// Splits a command line into options the way every iashim tool reads them:
// "--name=value", "--name value" or a bare "--flag". The caller says which
// names are flags and which take a value; anything else is an error whose
// message names the argument. The values themselves are the caller's to check.
#ifndef IASHIM_BENCH_FAKEJOB_CLI_ARGS_H_
#define IASHIM_BENCH_FAKEJOB_CLI_ARGS_H_

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace iashim::fakejob {

struct CliArg {
  std::string name;   // "--model", "-h"
  std::string value;  // empty for a flag
};

class CliArgs {
 public:
  CliArgs(const std::vector<std::string>& args, std::set<std::string> flags,
          std::set<std::string> valued)
      : args_(args), flags_(std::move(flags)), valued_(std::move(valued)) {}

  // The next option; nullopt at the end; an error for an unknown option, a
  // flag given a value, or an option missing its value.
  absl::StatusOr<std::optional<CliArg>> Next();

 private:
  const std::vector<std::string>& args_;
  const std::set<std::string> flags_;
  const std::set<std::string> valued_;
  size_t next_ = 0;
};

}  // namespace iashim::fakejob

#endif  // IASHIM_BENCH_FAKEJOB_CLI_ARGS_H_
