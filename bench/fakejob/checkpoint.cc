#include "bench/fakejob/checkpoint.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "bench/fakejob/number_parse.h"

namespace iashim::fakejob {
namespace {

constexpr char kKey[] = "iterations ";

}  // namespace

absl::StatusOr<int64_t> ReadCheckpoint(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    if (errno == ENOENT) return 0;
    return absl::FailedPreconditionError(
        absl::StrCat("checkpoint ", path, ": cannot read it: ", std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  std::string line = text.str();
  if (!line.empty() && line.back() == '\n') line.pop_back();
  const std::optional<int64_t> n =
      line.starts_with(kKey) ? ParseInt64(line.substr(sizeof(kKey) - 1)) : std::nullopt;
  if (!n || *n < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("checkpoint ", path, " is not \"iterations N\" (a file of another kind, ",
                     "or a damaged one): remove it to start from the first iteration"));
  }
  return *n;
}

absl::Status WriteCheckpoint(const std::string& path, int64_t iterations) {
  if (iterations < 0) return absl::InvalidArgumentError("a checkpoint's iterations must be >= 0");
  const std::string temporary = absl::StrCat(path, ".tmp.", getpid());
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << kKey << iterations << '\n';
    out.close();
    if (!out) {
      const int error = errno;
      std::remove(temporary.c_str());
      return absl::UnavailableError(
          absl::StrCat("checkpoint ", path, ": cannot write ", temporary, ": ",
                       std::strerror(error)));
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    std::remove(temporary.c_str());
    return absl::UnavailableError(
        absl::StrCat("checkpoint ", path, ": cannot rename ", temporary, " over it: ",
                     std::strerror(error)));
  }
  return absl::OkStatus();
}

}  // namespace iashim::fakejob
