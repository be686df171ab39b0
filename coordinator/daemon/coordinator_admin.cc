// Write actions a tool may take with the admin key (AdminRequest): drain or
// undrain GPUs, change a job's priority. Both are persisted, so a restarted
// coordinator keeps them.
#include <charconv>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "coordinator/daemon/coordinator.h"
#include "coordinator/daemon/wire_convert.h"
#include "coordinator/policy/cluster_state.h"

namespace iashim::daemon {
namespace {

constexpr std::string_view kDrainedPrefix = "drained/";

const char* ActionName(wire::AdminAction a) {
  switch (a) {
    case wire::AdminAction::Drain:
      return "drain";
    case wire::AdminAction::Undrain:
      return "undrain";
    case wire::AdminAction::SetPriority:
      return "priority";
  }
  return "an admin action";
}

std::string EncodeAdminReply(bool ok, std::string_view error, std::string_view text) {
  flatbuffers::FlatBufferBuilder fbb(256);
  const auto e = fbb.CreateString(error.data(), error.size());
  const auto t = fbb.CreateString(text.data(), text.size());
  return EnvelopeBytes(fbb, wire::Payload::AdminReply, wire::CreateAdminReply(fbb, ok, e, t).Union());
}

}  // namespace

void Coordinator::OnAdmin(const Sender& from, const wire::AdminRequest& req, std::vector<Outgoing>* out) {
  auto send = [&](std::string bytes) { out->push_back({std::string(from.identity), std::move(bytes)}); };
  auto fail = [&](std::string error) { send(EncodeAdminReply(false, error, "")); };
  const char* action = ActionName(req.action());
  if (!from.admin) {
    ++counters_.admin_refused;
    return send(EncodeError(absl::StrCat(
        "`iashim ", action,
        "` needs the admin key: make one with `iashim keygen --admin`, give the coordinator its "
        "public key (--admin-key) and the tool its secret key (--admin-key FILE)")));
  }
  switch (req.action()) {
    case wire::AdminAction::Drain:
    case wire::AdminAction::Undrain: {
      const std::string host = Clean(req.host(), 255);
      if (host.empty()) return fail(absl::StrCat(action, " needs a host"));
      std::vector<policy::GpuId> on_host;
      std::vector<std::string> hosts;
      for (const policy::GpuInfo& g : cluster_.gpus) {
        if (g.id.host == host) on_host.push_back(g.id);
        if (hosts.empty() || hosts.back() != g.id.host) hosts.push_back(g.id.host);
      }
      if (on_host.empty()) {
        return fail(absl::StrFormat("no GPU on host '%s' (the cluster's hosts: %s)", host,
                                    hosts.empty() ? "none" : absl::StrJoin(hosts, ", ")));
      }
      std::vector<policy::GpuId> gpus = on_host;
      if (req.gpu() != -1) {
        gpus.clear();
        for (const policy::GpuId& g : on_host) {
          if (g.index == req.gpu()) gpus.push_back(g);
        }
        if (gpus.empty()) {
          std::vector<int> indices;
          for (const policy::GpuId& g : on_host) indices.push_back(g.index);
          return fail(absl::StrFormat("host '%s' has no GPU %d (it has %s)", host, req.gpu(),
                                      absl::StrJoin(indices, ", ")));
        }
      }
      ++counters_.admin_actions;
      return send(EncodeAdminReply(true, "", SetDrained(gpus, req.action() == wire::AdminAction::Drain)));
    }
    case wire::AdminAction::SetPriority: {
      const std::string id = Clean(req.job(), 128);
      if (id.empty()) return fail("priority needs a job id");
      auto it = jobs_.find(id);
      if (it == jobs_.end()) return fail(absl::StrFormat("no job '%s' (iashim status lists them)", id));
      if (req.priority() != wire::Priority::Guaranteed &&
          req.priority() != wire::Priority::Opportunistic) {
        return fail(absl::StrFormat("priority %d is neither guaranteed (0) nor opportunistic (1)",
                                    int(req.priority())));
      }
      ++counters_.admin_actions;
      return send(EncodeAdminReply(true, "", SetPriority(it->second, FromWire(req.priority()))));
    }
  }
  fail(absl::StrFormat("unknown admin action %d", int(req.action())));
}

std::string Coordinator::SetDrained(const std::vector<policy::GpuId>& gpus, bool drained) {
  std::vector<std::string> names;
  for (const policy::GpuId& g : gpus) {
    const std::string name = policy::GpuName(g);
    names.push_back(name);
    if (drained ? !drained_.insert(g).second : drained_.erase(g) == 0) continue;  // as it was
    if (store_ == nullptr) continue;
    const std::string key = std::string(kDrainedPrefix) + name;
    Check(drained ? store_->PutKv(key, "1") : store_->RemoveKv(key));
  }
  return absl::StrCat(drained ? "drained " : "undrained ", absl::StrJoin(names, ", "),
                      drained ? " (jobs there run on; no new job is placed there)" : "");
}

std::string Coordinator::SetPriority(Job& job, policy::Priority priority) {
  const policy::Priority was = job.priority;
  job.priority = priority;
  if (was != priority) Persist(job);
  return absl::StrFormat("job '%s' is %s%s", job.id, PriorityName(priority),
                         was == priority ? " (it already was)"
                                         : "; its budget follows at the next control step");
}

void Coordinator::RestoreDrained() {
  for (const auto& [key, value] : store_->state().kv) {
    if (!key.starts_with(kDrainedPrefix)) continue;
    const std::string_view name = std::string_view(key).substr(kDrainedPrefix.size());
    const size_t colon = name.rfind(':');
    int index = -1;
    if (colon == std::string_view::npos ||
        std::from_chars(name.data() + colon + 1, name.data() + name.size(), index).ec != std::errc()) {
      continue;
    }
    const policy::GpuId id{std::string(name.substr(0, colon)), index};
    // A GPU the cluster no longer has stays recorded but means nothing.
    for (const policy::GpuInfo& g : cluster_.gpus) {
      if (g.id == id) drained_.insert(id);
    }
  }
}

}  // namespace iashim::daemon
