// `iashim place`: the placement `run` would get, printed instead of acted on,
// for scripts and schedulers that start jobs their own way. The answer is one
// "key: value" a line so it is easy to read and to parse.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "common/text/text.h"
#include "coordinator/cli/ask_coordinator.h"
#include "coordinator/cli/commands.h"
#include "coordinator/cli/interrupt.h"
#include "coordinator/client/coordinator_client.h"
#include "coordinator/client/place_messages.h"
#include "coordinator/client/self_info.h"

namespace iashim::cli {

int PlaceCommand(const CliOptions& options) {
  // A dry run without --gpu asks where in the cluster the job would go (what
  // job_submit.lua binds a job to, from slurmctld's host, which may itself be
  // one of the GPU nodes): no host. Anything else is about this node.
  const bool anywhere = options.placement.dry_run && options.placement.gpu < 0;
  const std::vector<uint8_t> request = client::EncodePlaceRequest(
      options.placement, anywhere ? std::string() : client::HostName(), /*command=*/"", getpid());
  CatchInterrupt();
  const client::RequestResult result = AskCoordinator(options, request, wire::Payload::PlaceReply);
  if (const std::optional<int> exit = FailedRequestExit(options, result)) return *exit;
  client::Placement p = client::DecodePlacement(*result.reply.envelope());
  const bool placed = p.outcome == client::Placement::Outcome::kPlaced;
  client::RefuseShortGang(options.placement.gpus, &p);
  switch (p.outcome) {
    case client::Placement::Outcome::kRefused:
      std::printf("refused: %s\n", p.reason.c_str());
      // An older coordinator registered it on fewer GPUs: say which, so it can be released.
      if (placed && !p.dry_run && !p.job.empty()) {
        std::fprintf(stderr, "iashim: the coordinator registered job '%s' anyway (token %s)\n",
                     p.job.c_str(), p.token.empty() ? "-" : p.token.c_str());
      }
      return kExitRefused;
    case client::Placement::Outcome::kQueued:
      std::printf("queued: %s\n", p.reason.c_str());
      if (!p.prefer_hosts.empty()) {
        std::printf("prefer_hosts: %s\n", absl::StrJoin(p.prefer_hosts, ",").c_str());
      }
      return kExitQueued;
    case client::Placement::Outcome::kPlaced:
      break;
  }
  std::printf("placed\n");
  // A coordinator that predates dry runs registered the job: say so rather
  // than print a dry run's answer for it.
  if (options.placement.dry_run && !p.dry_run) {
    std::fprintf(stderr,
                 "iashim: the coordinator does not know --dry-run: it registered job '%s'\n",
                 p.job.c_str());
  }
  if (p.dry_run) std::printf("dry_run: true\n");
  std::printf("job: %s\n", p.job.c_str());
  std::printf("host: %s\n", p.host.c_str());
  // A job wider than a node: its nodes, in rank order (job_submit.lua binds
  // the job to them).
  std::vector<std::string> hosts;
  for (const std::string& h : p.gpu_hosts) {
    if (std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(h);
  }
  if (hosts.size() > 1) std::printf("hosts: %s\n", absl::StrJoin(hosts, ",").c_str());
  if (p.gpu >= 0) {
    std::printf("gpu: %d\n", p.gpu);
  } else {
    std::printf("gpu: -\n");
  }
  if (!p.gpu_uuid.empty()) std::printf("gpu_uuid: %s\n", p.gpu_uuid.c_str());
  // A gang: every GPU in rank order, as CUDA_VISIBLE_DEVICES lists them.
  if (p.gpus.size() > 1) {
    std::printf("gpus: %s\n", client::VisibleDevices(p).c_str());
    std::string uuids;
    for (const std::string& u : p.gpu_uuids) uuids += (uuids.empty() ? "" : ",") + u;
    std::printf("gpu_uuids: %s\n", uuids.c_str());
  }
  std::printf("share: %.6g\n", p.share);
  // A job started some other way needs it as IASHIM_JOB_TOKEN.
  if (!p.token.empty()) std::printf("token: %s\n", p.token.c_str());
  if (p.mem_limit_bytes != 0) {
    std::printf("mem_limit: %llu (%s)\n", static_cast<unsigned long long>(p.mem_limit_bytes),
                FormatBytes(p.mem_limit_bytes).c_str());
  } else {
    std::printf("mem_limit: none\n");
  }
  return kExitOk;
}

}  // namespace iashim::cli
