#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "coordinator/clustersim/internal/simulation.h"
#include "coordinator/clustersim/job_kinds.h"

namespace iashim::clustersim::sim_internal {

bool Simulation::NodeFreeFor(int job, int node) const {
  const std::vector<int>& gpus = node_gpus_[node];
  if (static_cast<int>(gpus.size()) != config_.gpus_per_node) return false;
  if (job != reserving_job_ && Hidden(gpus[0])) return false;
  if (!HasGuaranteedGpusFor(job, node, config_.gpus_per_node)) return false;
  if (GangsTakeBusyGpus()) {
    return HasCpusFor(node, config_.gpus_per_node) &&
           std::none_of(gpus.begin(), gpus.end(), [&](int g) { return ClosedToGangs(g); });
  }
  return std::all_of(gpus.begin(), gpus.end(), [&](int g) { return on_gpu_[g].empty(); });
}

std::vector<int> Simulation::SlurmNodes(int job) const {
  std::vector<int> gpus;
  int nodes = 0;
  for (size_t node = 0; node < node_gpus_.size() && nodes < NodesOf(job); ++node) {
    if (!NodeFreeFor(job, static_cast<int>(node))) continue;
    gpus.insert(gpus.end(), node_gpus_[node].begin(), node_gpus_[node].end());
    ++nodes;
  }
  if (nodes < NodesOf(job)) gpus.clear();
  return gpus;
}

bool Simulation::MightFit(int job) const {
  // Exact for a gang across nodes: Slurm's own rule places it (SchedulePass).
  if (SpansNodes(job)) return !SlurmNodes(job).empty();
  const int k = jobs_[job].type.scale;
  const bool sees_all = job == reserving_job_;
  const bool takes_busy = k > 1 && GangsTakeBusyGpus();
  for (size_t node = 0; node < node_gpus_.size(); ++node) {
    if (!sees_all && Hidden(node_gpus_[node].front())) continue;
    if (takes_busy && !HasCpusFor(static_cast<int>(node), k)) continue;
    if (!HasGuaranteedGpusFor(job, static_cast<int>(node), k)) continue;
    int empty = 0;
    for (int g : node_gpus_[node]) {
      if (on_gpu_[g].empty() || (takes_busy && !ClosedToGangs(g))) {
        if (++empty >= k) return true;
      } else if (k == 1 && config_.policy_may_share && on_gpu_[g].size() == 1 &&
                 may_share_[kind_of_[job]][kind_of_[on_gpu_[g][0]]] && !TakesAWholeGpu(job) &&
                 !TakesAWholeGpu(on_gpu_[g][0])) {
        return true;
      }
    }
  }
  return false;
}

void Simulation::Reserve(int job) {
  // The nodes with the most empty GPUs drain fastest (ties: the lowest). A
  // gang across nodes reserves whole nodes only.
  std::vector<std::pair<int, int>> by_empty;  // (-empty GPUs, node)
  for (size_t node = 0; node < node_gpus_.size(); ++node) {
    const int size = static_cast<int>(node_gpus_[node].size());
    if (SpansNodes(job) ? size != config_.gpus_per_node : size < jobs_[job].type.scale) continue;
    int empty = 0;
    for (int g : node_gpus_[node]) empty += on_gpu_[g].empty() ? 1 : 0;
    by_empty.emplace_back(-empty, static_cast<int>(node));
  }
  std::sort(by_empty.begin(), by_empty.end());
  by_empty.resize(std::min(by_empty.size(), static_cast<size_t>(NodesOf(job))));
  std::fill(reserved_.begin(), reserved_.end(), 0);
  for (const auto& [empty, node] : by_empty) reserved_[node] = 1;
  reserving_job_ = job;
  view_ = full_;
  std::erase_if(view_.cluster.gpus,
                [&](const policy::GpuInfo& g) { return Hidden(gpu_index_.at(g.id)); });
  for (const auto& [empty, node] : by_empty) {
    for (int g : node_gpus_[node]) view_.jobs.erase(gpu_ids_[g]);
  }
  StateChanged();
}

void Simulation::DropNodesWhere(const std::function<bool(int node)>& lacks_room,
                                ClusterState* view) const {
  std::erase_if(view->cluster.gpus, [&](const policy::GpuInfo& g) {
    if (!lacks_room(node_of_[gpu_index_.at(g.id)])) return false;
    view->jobs.erase(g.id);
    return true;
  });
}

void Simulation::DropNodesWithoutCpus(int k, ClusterState* view) const {
  DropNodesWhere([&](int node) { return !HasCpusFor(node, k); }, view);
}

void Simulation::DropNodesWithoutGuaranteedGpus(int job, ClusterState* view) const {
  DropNodesWhere([&](int node) { return !HasGuaranteedGpusFor(job, node, TasksPerNode(job)); },
                 view);
}

ClusterState Simulation::GangView(int k) const {
  ClusterState view = gangs_view_;
  DropNodesWithoutCpus(k, &view);
  return view;
}

ClusterState Simulation::BusyGangView(int k) const {
  ClusterState view = full_;
  // Memory in units of a GPU's: a gang holds its GPUs whole; a one-GPU job
  // its share (MemoryShareOf), when modelled.
  constexpr uint64_t kGpuBytes = uint64_t{1} << 30;
  const bool memory = MemoryModelled();
  for (auto& [id, placed] : view.jobs) {
    for (PlacedJob& j : placed) {
      if (j.gpu_count > 1) {
        j.mem_bytes = 0;
      } else if (memory) {
        j.mem_bytes = static_cast<uint64_t>(MemoryShareOf(j.traits.kind) * double(kGpuBytes));
      }
    }
  }
  if (memory) {
    for (policy::GpuInfo& g : view.cluster.gpus) g.memory_bytes = kGpuBytes;
  }
  DropNodesWithoutCpus(k, &view);
  return view;
}

void Simulation::NoteSubmission(int job) {
  if (config_.slurm_chooses_the_node && !IsGang(job)) {
    const PlacementDecision d = policy_.Place(RequestFor(job), DryRunView());
    ++result_.place_calls;
    if (d.outcome != PlacementDecision::Outcome::kPlaced) return;  // Slurm chooses
    const int gpu = gpu_index_.at(d.gpu);
    named_nodes_[job] = {node_of_[gpu]};
    reservations_.push_back({job, gpu, now_ + kReservationTtlS});
    return;
  }
  if (!SpansNodes(job) || !GangsTakeBusyGpus() || busy_gang_policy_ == nullptr) return;
  // The coordinator's view: every job running, no Slurm accounting of CPUs.
  const PlacementDecision d = busy_gang_policy_->Place(BusyGangRequest(job), BusyGangView(0));
  ++result_.place_calls;
  // Placed: those nodes; queued: those it would take once the gangs there
  // end (PlacementDecision::preferred), a preference all the same.
  const std::vector<GpuId>& gpus =
      d.outcome == PlacementDecision::Outcome::kPlaced ? d.gpus : d.preferred;
  for (const GpuId& id : gpus) {
    const int node = node_of_[gpu_index_.at(id)];
    std::vector<int>& named = named_nodes_[job];
    if (std::find(named.begin(), named.end(), node) == named.end()) named.push_back(node);
  }
}

ClusterState Simulation::DryRunView() const {
  ClusterState view = full_;
  for (const DryRunReservation& r : reservations_) {
    if (r.until_s <= now_) continue;
    PlacedJob held = PlacedJobFor(r.job);
    held.job = absl::StrCat("(reserved for ", jobs_[r.job].id, ")");
    view.jobs[gpu_ids_[r.gpu]].push_back(std::move(held));
  }
  return view;
}

bool Simulation::SlurmHasRoom(int node) const {
  if (!HasCpusFor(node, 1)) return false;
  int slots = 0, used = 0;
  for (int g : node_gpus_[node]) {
    if (ClosedToGangs(g)) continue;
    slots += 2;
    used += static_cast<int>(on_gpu_[g].size());
  }
  return used < slots;
}

std::optional<int> Simulation::SlurmNodeFor(int job) const {
  const auto has_room = [&](int node) {
    return SlurmHasRoom(node) && HasGuaranteedGpusFor(job, node, 1);
  };
  const std::vector<int>& named = named_nodes_[job];
  if (!named.empty() && has_room(named.front())) return named.front();
  for (size_t node = 0; node < node_gpus_.size(); ++node) {
    if (has_room(static_cast<int>(node))) return static_cast<int>(node);
  }
  return std::nullopt;
}

PlacementRequest Simulation::RequestFor(int job) const {
  const PlacedJob placed = PlacedJobFor(job);
  PlacementRequest request;
  request.job = placed.job;
  request.priority = placed.priority;
  request.mem_bytes = placed.mem_bytes;
  request.traits = placed.traits;
  request.gpu_count = placed.gpu_count;
  return request;
}

PlacedJob Simulation::PlacedJobFor(int job) const {
  PlacedJob placed;
  placed.job = jobs_[job].id;
  placed.priority = jobs_[job].priority;
  placed.mem_bytes = kNominalJobBytes;
  placed.traits = traits_[job];
  placed.gpu_count = jobs_[job].type.scale;
  return placed;
}

PlacementRequest Simulation::BusyGangRequest(int job) const {
  PlacementRequest request = RequestFor(job);
  request.mem_bytes = 0;  // whole GPUs, as gpu:k, in the memory their jobs leave
  request.join_busy_gpus = true;
  // Its ranks share GPUs as its one-GPU model does (KeptBeside).
  request.traits = TraitsOf(JobType{jobs_[job].type.name, 1});
  return request;
}

}  // namespace iashim::clustersim::sim_internal
