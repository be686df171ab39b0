#include "coordinator/cli/request_failure.h"

#include "absl/strings/str_cat.h"
#include "coordinator/cli/json_writer.h"

namespace iashim::cli {

RequestFailure DescribeRequestFailure(std::string_view endpoint, bool key_configured,
                                      client::RequestStatus status, std::string_view detail) {
  RequestFailure f;
  // (Debian's Abseil has its own string_view: std::string_view goes through std::string.)
  f.error =
      absl::StrCat("no coordinator at ", std::string(endpoint), " (", std::string(detail), ")");
  // Silence, not a malformed endpoint or a reply we could not use.
  if (status != client::RequestStatus::kNoReply || !detail.starts_with("no reply in")) return f;
  if (key_configured) {
    f.hints.push_back(
        "if it is running, check that --coordinator-key (or IASHIM_COORDINATOR_KEY) is its "
        "public key");
  }
  f.hints.push_back(
      "start one with iashim-coordinator (on simgpu: LD_LIBRARY_PATH=build/simgpu "
      "build/coordinator/daemon/iashim-coordinator), or name a running one with --coordinator "
      "or IASHIM_COORDINATOR");
  return f;
}

RequestFailure DescribeErrorReply(std::string_view reason) {
  return {"the coordinator could not answer: " +
              (reason.empty() ? std::string("(no reason given)") : std::string(reason)),
          {}};
}

std::string FailureText(const RequestFailure& failure) {
  std::string out = absl::StrCat("iashim: ", failure.error, "\n");
  for (const std::string& h : failure.hints) absl::StrAppend(&out, "iashim: ", h, "\n");
  return out;
}

std::string FailureJson(const RequestFailure& failure) {
  JsonWriter w(2);
  w.BeginObject();
  w.Key("error").String(failure.error);
  w.Key("hints").BeginArray();
  for (const std::string& h : failure.hints) w.String(h);
  w.EndArray();
  w.EndObject();
  return w.str() + "\n";
}

}  // namespace iashim::cli
