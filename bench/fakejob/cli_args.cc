#include "bench/fakejob/cli_args.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace iashim::fakejob {

absl::StatusOr<std::optional<CliArg>> CliArgs::Next() {
  if (next_ >= args_.size()) return std::optional<CliArg>();
  const std::string& raw = args_[next_++];
  std::string name = raw;
  std::optional<std::string> inline_value;
  if (absl::StartsWith(name, "--")) {
    if (size_t eq = name.find('='); eq != std::string::npos) {
      inline_value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
  }
  if (flags_.count(name)) {
    if (inline_value) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, " takes no value (got '", *inline_value, "')"));
    }
    return std::optional<CliArg>(CliArg{name, ""});
  }
  if (!valued_.count(name)) {
    if (absl::StartsWith(name, "-")) {
      return absl::InvalidArgumentError(absl::StrCat("unknown option '", raw, "' (see --help)"));
    }
    return absl::InvalidArgumentError(absl::StrCat("unexpected argument '", name, "' (see --help)"));
  }
  if (inline_value) return std::optional<CliArg>(CliArg{name, *inline_value});
  if (next_ >= args_.size()) return absl::InvalidArgumentError(absl::StrCat(name, " needs a value"));
  return std::optional<CliArg>(CliArg{name, args_[next_++]});
}

}  // namespace iashim::fakejob
