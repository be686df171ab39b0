// The placement exchange that `run` and `place` share: the PlaceRequest they
// send and what the PlaceReply (or an ErrorReply) means.
#ifndef IASHIM_COORDINATOR_CLIENT_PLACE_MESSAGES_H_
#define IASHIM_COORDINATOR_CLIENT_PLACE_MESSAGES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "coordinator/client/request_options.h"
#include "schemas/telemetry_generated.h"

namespace iashim::client {

// The arguments joined with spaces, cut to at most `max_bytes` without
// splitting a UTF-8 character, for PlaceRequest.command (display only).
std::string JoinCommand(const std::vector<std::string>& argv, size_t max_bytes);

// A finished Envelope holding a PlaceRequest.
std::vector<uint8_t> EncodePlaceRequest(const PlacementOptions& placement, std::string_view host,
                                        std::string_view command, int pid);

struct Placement {
  enum class Outcome { kPlaced, kQueued, kRefused };
  Outcome outcome = Outcome::kRefused;
  std::string reason;  // kQueued, kRefused: the coordinator's words
  std::string job;
  std::string host;
  int gpu = -1;  // the first (or only) GPU
  std::string gpu_uuid;
  // Every GPU of the job in rank order (gpus[0] == gpu); one for a one-GPU
  // job, also from a coordinator that predates gangs; empty when none named.
  std::vector<int> gpus;
  std::vector<std::string> gpu_uuids;  // parallel to gpus ("" where not known)
  // The host of each GPU, parallel to gpus (`host` where not said): a dry run
  // for a job wider than a node names GPUs of several hosts.
  std::vector<std::string> gpu_hosts;
  // kQueued dry run of a job wider than a node: the nodes it would take once
  // the gangs on them end (for job_submit.lua's preference); empty: none.
  std::vector<std::string> prefer_hosts;
  double share = 1.0;
  uint64_t mem_limit_bytes = 0;
  std::string token;  // the job's token (IASHIM_JOB_TOKEN); empty from an older coordinator,
                      // and for a dry run
  bool dry_run = false;  // the coordinator answered a dry run: nothing registered
};

// `envelope` is a verified reply holding a PlaceReply or an ErrorReply (an
// ErrorReply is a refusal: the coordinator could not serve the request).
Placement DecodePlacement(const wire::Envelope& envelope);

// A placement of fewer GPUs than `asked` (a coordinator from before gangs
// ignores PlaceRequest.gpus and places one) becomes a refusal saying so: the
// job's ranks would find too few GPUs. Anything else is left as it is.
void RefuseShortGang(int asked, Placement* placement);

// CUDA_VISIBLE_DEVICES for the placement: its GPUs comma-separated, in rank
// order ("0,1,2,3"); empty when it names none.
std::string VisibleDevices(const Placement& placement);

}  // namespace iashim::client

#endif  // IASHIM_COORDINATOR_CLIENT_PLACE_MESSAGES_H_
