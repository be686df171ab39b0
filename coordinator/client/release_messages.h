// The release exchange: a tool (e.g. a batch system's plugin, at the end of a
// job step) tells the coordinator a job is over, with the job's token, so it
// is forgotten now rather than at its Goodbye or forget-after. The
// ReleaseRequest it sends and what the ReleaseReply (or an ErrorReply) means.
#ifndef IASHIM_COORDINATOR_CLIENT_RELEASE_MESSAGES_H_
#define IASHIM_COORDINATOR_CLIENT_RELEASE_MESSAGES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "schemas/telemetry_generated.h"

namespace iashim::client {

// A finished Envelope holding a ReleaseRequest for `job` with its `token`.
std::vector<uint8_t> EncodeReleaseRequest(std::string_view job, std::string_view token);

struct Release {
  bool released = false;
  std::string message;  // the coordinator's words (why not, when !released)
};

// `envelope` is a verified reply holding a ReleaseReply or an ErrorReply (an
// ErrorReply: released = false, message = its text).
Release DecodeRelease(const wire::Envelope& envelope);

}  // namespace iashim::client

#endif  // IASHIM_COORDINATOR_CLIENT_RELEASE_MESSAGES_H_
