// Per-job tokens: a job's shim proves it belongs to the job by presenting the
// token the coordinator minted when the job was created (PlaceReply, or an
// Advice Token for a job its own Hello created). 128 random bits as 32
// lowercase hex digits, so they survive environment variables and logs.
#ifndef IASHIM_COORDINATOR_DAEMON_JOB_TOKEN_H_
#define IASHIM_COORDINATOR_DAEMON_JOB_TOKEN_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace iashim::daemon {

inline constexpr size_t kJobTokenHexDigits = 32;

// A fresh token (valid by names.h's ValidJobToken) from getrandom(2); an error only when the kernel has no
// randomness to give (never silently a weak one).
absl::StatusOr<std::string> NewJobToken();

// Equality that takes the same time wherever the first difference is, so a
// wrong guess says nothing about how close it was.
bool SameToken(std::string_view a, std::string_view b);

}  // namespace iashim::daemon

#endif  // IASHIM_COORDINATOR_DAEMON_JOB_TOKEN_H_
