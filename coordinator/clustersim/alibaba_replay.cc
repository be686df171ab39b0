#include "coordinator/clustersim/alibaba_replay.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "coordinator/policy/interference_model.h"
#include "coordinator/policy/priority.h"

namespace iashim::clustersim {
namespace {

using Clock = std::chrono::steady_clock;

// The trace's pods are all one kind to the interference model: it has no
// data on them, so only the prior can apply.
constexpr const char* kPodKind = "alibaba-pod";

// Sorted and without repeats, so "A|B" and "B|A" share a view.
std::vector<std::string> NormalSpec(const std::vector<std::string>& spec) {
  std::vector<std::string> s = spec;
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

// Nearest rank; `v` is sorted.
double Percentile(const std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  const double rank = std::ceil(q * static_cast<double>(v.size()));
  const size_t i = static_cast<size_t>(std::clamp(rank, 1.0, static_cast<double>(v.size()))) - 1;
  return v[i];
}

// The calling thread's CPU time, in microseconds.
double ThreadCpuUs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

double Mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

class Replay {
 public:
  Replay(const policy::PlacementPolicy& policy, const policy::Cluster& cluster,
         std::span<const AlibabaPod> pods, const AlibabaReplayOptions& options,
         policy::RequestMix* mix)
      : policy_(policy),
        options_(options),
        mix_(mix),
        tracker_(cluster),
        workload_(AlibabaWorkload(pods)) {
    // GPUs, their nodes and models. The cluster is in GpuId order, so a
    // node's GPUs are one run starting at index 0.
    absl::flat_hash_map<std::string, int> model_index;
    for (const policy::GpuInfo& g : cluster.gpus) {
      auto [node, new_node] =
          node_index_.try_emplace(g.id.host, static_cast<int>(node_first_gpu_.size()));
      if (new_node) {
        node_first_gpu_.push_back(static_cast<int>(gpu_ids_.size()));
        node_gpus_.push_back(0);
      }
      ++node_gpus_[node->second];
      auto [it, added] = model_index.try_emplace(g.type, static_cast<int>(models_.size()));
      if (added) models_.push_back(g.type);
      gpu_model_.push_back(it->second);
      gpu_ids_.push_back(g.id);
    }
    allocated_.assign(cluster.gpus.size(), 0);
    model_views_.resize(models_.size());

    // View 0: every GPU; then one per distinct gpu_spec.
    AddView(cluster, std::vector<bool>(models_.size(), true));
    // Specs that accept the same models share a view.
    std::map<std::vector<std::string>, int> spec_view;
    std::map<std::vector<bool>, int> mask_view = {{std::vector<bool>(models_.size(), true), 0}};
    std::map<std::tuple<int, uint64_t, int>, int> shape_index;
    for (size_t i = 0; i < pods.size(); ++i) {
      const AlibabaPod& p = pods[i];
      if (p.num_gpu == 0) {
        ++result_.skipped;
        continue;
      }
      PodRun run;
      run.pod = &p;
      run.view = 0;
      if (!p.gpu_spec.empty()) {
        const std::vector<std::string> spec = NormalSpec(p.gpu_spec);
        auto [it, added] = spec_view.try_emplace(spec, 0);
        if (added) {
          std::vector<bool> accepts(models_.size(), false);
          for (size_t m = 0; m < models_.size(); ++m) {
            accepts[m] = std::binary_search(spec.begin(), spec.end(), models_[m]);
          }
          auto [mask, new_mask] = mask_view.try_emplace(accepts, 0);
          if (new_mask) mask->second = AddView(cluster, accepts);
          it->second = mask->second;
        }
        run.view = it->second;
      }
      run.request.mem_bytes = AlibabaMemBytes(p);
      run.milli = run.request.mem_bytes == 0 ? kGpuMilli : p.gpu_milli;
      run.request.job = p.name;
      run.request.priority = policy::Priority::kOpportunistic;
      run.request.traits.kind = kPodKind;
      run.request.gpu_count = p.num_gpu;
      run.duration_s = p.deletion_s - p.creation_s;
      run.shape = shape_index
                      .try_emplace(std::make_tuple(run.view, run.request.mem_bytes, p.num_gpu),
                                   static_cast<int>(shape_index.size()))
                      .first->second;
      runs_.push_back(std::move(run));
    }
    waiting_by_shape_.assign(shape_index.size(), 0);
    refused_in_pass_.assign(shape_index.size(), -1);
    result_.pods = static_cast<int64_t>(pods.size());
    result_.gpu_pods = static_cast<int64_t>(runs_.size());
    result_.nodes = static_cast<int64_t>(node_first_gpu_.size());
    result_.gpus = static_cast<int64_t>(cluster.gpus.size());
  }

  absl::StatusOr<AlibabaReplayResult> Run(policy::ClusterState* final_state) {
    const Clock::time_point begin = Clock::now();
    result_.frag_workload_empty = tracker_.Measure(workload_).workload_share;
    // Arrivals by creation time; ties in file order.
    std::vector<int> order(runs_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return runs_[a].pod->creation_s < runs_[b].pod->creation_s;
    });
    latencies_us_.reserve(runs_.size() * 2);
    cpu_us_.reserve(runs_.size() * 2);

    constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
    size_t next = 0;
    bool stopped = false;
    while (!stopped && (next < order.size() || !departures_.empty())) {
      const int64_t arrival_at = next < order.size() ? runs_[order[next]].pod->creation_s : kNever;
      const int64_t departure_at = departures_.empty() ? kNever : departures_.top().first;
      if (departure_at <= arrival_at) {
        now_ = departure_at;
        while (!departures_.empty() && departures_.top().first == now_) {
          Stop(departures_.top().second);
          departures_.pop();
        }
        if (absl::Status s = RetryQueue(); !s.ok()) return s;
      } else {
        now_ = arrival_at;
        if (absl::Status s = Arrive(order[next++]); !s.ok()) return s;
        Sample();
        ++result_.arrivals;
        stopped = options_.stop_after_arrivals >= 0 &&
                  result_.arrivals >= options_.stop_after_arrivals;
      }
    }
    result_.end_time_s = static_cast<double>(now_);
    result_.never_placed = static_cast<int64_t>(queue_.size());
    result_.wall_s = std::chrono::duration<double>(Clock::now() - begin).count();
    Summarise();
    if (final_state != nullptr) *final_state = views_[0].state;
    return result_;
  }

 private:
  struct View {
    policy::ClusterState state;
  };

  struct PodRun {
    const AlibabaPod* pod = nullptr;
    int view = 0;
    int shape = 0;  // same view, milli and GPU count: the same question
    int milli = 0;  // per GPU, 1000 when whole
    int64_t duration_s = 0;
    policy::PlacementRequest request;
    std::vector<int> gpus;  // where it runs
    int64_t start_s = -1;
    bool waited = false;
  };

  int AddView(const policy::Cluster& cluster, const std::vector<bool>& accepts) {
    const int v = static_cast<int>(views_.size());
    View view;
    for (size_t i = 0; i < cluster.gpus.size(); ++i) {
      if (accepts[gpu_model_[i]]) view.state.cluster.gpus.push_back(cluster.gpus[i]);
    }
    for (size_t m = 0; m < accepts.size(); ++m) {
      if (accepts[m]) model_views_[m].push_back(v);
    }
    views_.push_back(std::move(view));
    return v;
  }

  // Asks the policy; on kPlaced, checks the answer and starts the pod.
  absl::StatusOr<policy::PlacementDecision::Outcome> Ask(int r) {
    PodRun& run = runs_[r];
    policy::ClusterState& state = views_[run.view].state;
    // The queue without this pod, when it is in it.
    state.queued_gpus = queued_gpus_ - (run.waited ? Demand(run) : 0.0);
    const double cpu0 = ThreadCpuUs();
    const Clock::time_point t0 = Clock::now();
    policy::PlacementDecision d = policy_.Place(run.request, state);
    const Clock::time_point t1 = Clock::now();
    cpu_us_.push_back(ThreadCpuUs() - cpu0);
    latencies_us_.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    if (d.outcome != policy::PlacementDecision::Outcome::kPlaced) return d.outcome;

    if (d.gpus.empty()) d.gpus.push_back(d.gpu);
    const auto bad = [&](const std::string& why) {
      return absl::InternalError(absl::StrCat("the policy placed pod ", run.pod->name, " on ",
                                              absl::StrJoin(d.gpus, ", ",
                                                            [](std::string* out, const auto& id) {
                                                              out->append(policy::GpuName(id));
                                                            }),
                                              ": ", why, " (reason: ", d.reason, ")"));
    };
    if (static_cast<int>(d.gpus.size()) != run.request.gpu_count) {
      return bad(absl::StrCat(run.request.gpu_count, " GPU(s) were asked"));
    }
    std::vector<int> gpus;
    for (const policy::GpuId& id : d.gpus) {
      const auto node = node_index_.find(id.host);
      if (node == node_index_.end() || id.index < 0 || id.index >= node_gpus_[node->second]) {
        return bad("no such GPU");
      }
      const int g = node_first_gpu_[node->second] + id.index;
      const std::vector<int>& accepting = model_views_[gpu_model_[g]];
      if (std::find(accepting.begin(), accepting.end(), run.view) == accepting.end()) {
        return bad("a GPU model the pod does not accept");
      }
      if (allocated_[g] + run.milli > kGpuMilli ||
          std::find(gpus.begin(), gpus.end(), g) != gpus.end()) {
        return bad("a GPU without room for it");
      }
      gpus.push_back(g);
    }
    Start(r, std::move(gpus));
    return policy::PlacementDecision::Outcome::kPlaced;
  }

  void Start(int r, std::vector<int> gpus) {
    PodRun& run = runs_[r];
    run.gpus = std::move(gpus);
    run.start_s = now_;
    const policy::PlacedJob job{.job = run.request.job,
                                .priority = run.request.priority,
                                .mem_bytes = run.request.mem_bytes,
                                .busy = 0,
                                .traits = run.request.traits,
                                .gpu_count = run.request.gpu_count};
    for (int g : run.gpus) {
      for (int v : model_views_[gpu_model_[g]]) views_[v].state.jobs[gpu_ids_[g]].push_back(job);
      allocated_[g] += run.milli;
      tracker_.SetAllocated(g, allocated_[g]);
    }
    ++running_;
    ++result_.placed;
    if (run.waited) {
      waits_s_.push_back(static_cast<double>(run.start_s - run.pod->creation_s));
    } else {
      ++result_.placed_at_once;
    }
    if (options_.mode == AlibabaReplayMode::kTimed) departures_.emplace(now_ + run.duration_s, r);
  }

  void Stop(int r) {
    PodRun& run = runs_[r];
    for (int g : run.gpus) {
      for (int v : model_views_[gpu_model_[g]]) {
        auto it = views_[v].state.jobs.find(gpu_ids_[g]);
        if (it == views_[v].state.jobs.end()) continue;
        std::erase_if(it->second,
                      [&](const policy::PlacedJob& j) { return j.job == run.request.job; });
        if (it->second.empty()) views_[v].state.jobs.erase(it);
      }
      allocated_[g] -= run.milli;
      tracker_.SetAllocated(g, allocated_[g]);
    }
    --running_;
  }

  // GPUs' worth of capacity a pod asks.
  static double Demand(const PodRun& run) {
    return static_cast<double>(run.milli) / kGpuMilli * static_cast<double>(run.request.gpu_count);
  }

  absl::Status Arrive(int r) {
    PodRun& run = runs_[r];
    if (mix_ != nullptr) mix_->Observe(run.request.gpu_count, run.request.mem_bytes);
    // A pod of the same request is waiting: it was refused and capacity has
    // only shrunk since, so this one would be refused too; it queues behind.
    if (waiting_by_shape_[run.shape] > 0) {
      Enqueue(r);
      return absl::OkStatus();
    }
    absl::StatusOr<policy::PlacementDecision::Outcome> outcome = Ask(r);
    if (!outcome.ok()) return outcome.status();
    switch (*outcome) {
      case policy::PlacementDecision::Outcome::kPlaced:
        break;
      case policy::PlacementDecision::Outcome::kQueued:
        Enqueue(r);
        break;
      case policy::PlacementDecision::Outcome::kRejected:
        ++result_.rejected;
        break;
    }
    return absl::OkStatus();
  }

  void Enqueue(int r) {
    runs_[r].waited = true;
    ++result_.waited;
    ++waiting_by_shape_[runs_[r].shape];
    queued_gpus_ += Demand(runs_[r]);
    queue_.push_back(r);
    result_.max_queue = std::max(result_.max_queue, static_cast<int64_t>(queue_.size()));
  }

  // Asks again for every waiting pod, in arrival order; a request refused in
  // this pass is not asked again in it.
  absl::Status RetryQueue() {
    if (queue_.empty()) return absl::OkStatus();
    ++pass_;
    std::vector<int> still;
    still.reserve(queue_.size());
    for (int r : queue_) {
      const int shape = runs_[r].shape;
      if (refused_in_pass_[shape] == pass_) {
        still.push_back(r);
        continue;
      }
      absl::StatusOr<policy::PlacementDecision::Outcome> outcome = Ask(r);
      if (!outcome.ok()) return outcome.status();
      switch (*outcome) {
        case policy::PlacementDecision::Outcome::kPlaced:
          --waiting_by_shape_[shape];
          queued_gpus_ -= Demand(runs_[r]);
          break;
        case policy::PlacementDecision::Outcome::kQueued:
          refused_in_pass_[shape] = pass_;
          still.push_back(r);
          break;
        case policy::PlacementDecision::Outcome::kRejected:
          --waiting_by_shape_[shape];
          queued_gpus_ -= Demand(runs_[r]);
          ++result_.rejected;
          break;
      }
    }
    queue_ = std::move(still);
    return absl::OkStatus();
  }

  void Sample() {
    const Fragmentation f = tracker_.Measure(workload_);
    ++result_.samples;
    partial_sum_ += f.partial_share;
    workload_sum_ += f.workload_share;
    alloc_sum_ += f.alloc_rate;
    if (result_.samples == 1 || f.allocated_milli > result_.peak.allocated_milli) {
      result_.peak = f;
      result_.peak_time_s = static_cast<double>(now_);
      result_.peak_arrivals = result_.arrivals + 1;  // this arrival included
      result_.peak_running = running_;
    }
  }

  void Summarise() {
    if (result_.samples > 0) {
      const double n = static_cast<double>(result_.samples);
      result_.frag_partial_mean = partial_sum_ / n;
      result_.frag_workload_mean = workload_sum_ / n;
      result_.alloc_rate_mean = alloc_sum_ / n;
    }
    result_.decisions = static_cast<int64_t>(latencies_us_.size());
    double total_us = 0;
    for (double us : latencies_us_) total_us += us;
    result_.place_total_s = total_us / 1e6;
    result_.latency_mean_us = Mean(latencies_us_);
    std::sort(latencies_us_.begin(), latencies_us_.end());
    result_.latency_p50_us = Percentile(latencies_us_, 0.50);
    result_.latency_p99_us = Percentile(latencies_us_, 0.99);
    result_.latency_max_us = latencies_us_.empty() ? 0 : latencies_us_.back();
    std::sort(cpu_us_.begin(), cpu_us_.end());
    result_.cpu_p50_us = Percentile(cpu_us_, 0.50);
    result_.cpu_p99_us = Percentile(cpu_us_, 0.99);
    result_.cpu_max_us = cpu_us_.empty() ? 0 : cpu_us_.back();
    result_.wait_mean_s = Mean(waits_s_);
    std::sort(waits_s_.begin(), waits_s_.end());
    result_.wait_p50_s = Percentile(waits_s_, 0.50);
    result_.wait_p99_s = Percentile(waits_s_, 0.99);
    result_.wait_max_s = waits_s_.empty() ? 0 : waits_s_.back();
  }

  const policy::PlacementPolicy& policy_;
  const AlibabaReplayOptions& options_;
  policy::RequestMix* mix_;
  FragmentationTracker tracker_;
  std::vector<WorkloadClass> workload_;

  absl::flat_hash_map<std::string, int> node_index_;
  std::vector<int> node_first_gpu_;
  std::vector<int> node_gpus_;
  std::vector<std::string> models_;
  std::vector<int> gpu_model_;
  std::vector<policy::GpuId> gpu_ids_;
  std::vector<int> allocated_;               // milli, per GPU
  std::vector<std::vector<int>> model_views_;  // the views that hold a model's GPUs
  std::vector<View> views_;

  std::vector<PodRun> runs_;
  std::vector<int> queue_;                 // waiting pods, in arrival order
  std::vector<int64_t> waiting_by_shape_;  // waiting pods per shape
  std::vector<int64_t> refused_in_pass_;   // per shape: the pass that last refused it
  int64_t pass_ = 0;
  // (time, pod): the earliest first; ties by pod index, so runs repeat.
  std::priority_queue<std::pair<int64_t, int>, std::vector<std::pair<int64_t, int>>,
                      std::greater<>>
      departures_;
  int64_t now_ = 0;
  int64_t running_ = 0;
  double queued_gpus_ = 0;  // Demand() summed over queue_

  std::vector<double> latencies_us_;
  std::vector<double> cpu_us_;
  std::vector<double> waits_s_;
  double partial_sum_ = 0;
  double workload_sum_ = 0;
  double alloc_sum_ = 0;
  AlibabaReplayResult result_;
};

}  // namespace

uint64_t AlibabaMemBytes(const AlibabaPod& pod) {
  const bool whole = pod.num_gpu > 1 || pod.gpu_milli >= kGpuMilli;
  return whole ? 0 : static_cast<uint64_t>(pod.gpu_milli);
}

absl::StatusOr<policy::Cluster> AlibabaCluster(std::span<const AlibabaNode> nodes) {
  policy::Cluster cluster;
  absl::flat_hash_map<std::string, int> seen;
  for (const AlibabaNode& n : nodes) {
    if (!seen.emplace(n.sn, 0).second) {
      return absl::InvalidArgumentError(absl::StrCat("node ", n.sn, " is listed twice"));
    }
    if (n.gpus < 1 || n.gpus > kMaxGpusPerNode) {
      return absl::InvalidArgumentError(absl::StrCat("node ", n.sn, " has ", n.gpus, " GPUs"));
    }
    for (int i = 0; i < n.gpus; ++i) {
      cluster.gpus.push_back(policy::GpuInfo{.id = {.host = n.sn, .index = i},
                                             .type = n.model,
                                             .name = n.model,
                                             .uuid = "",
                                             .memory_bytes = kGpuMilli});
    }
  }
  // GpuId order: what the policies walk in, so they need not sort per call.
  std::sort(cluster.gpus.begin(), cluster.gpus.end(),
            [](const policy::GpuInfo& a, const policy::GpuInfo& b) { return a.id < b.id; });
  return cluster;
}

std::vector<WorkloadClass> AlibabaWorkload(std::span<const AlibabaPod> pods) {
  std::map<std::tuple<int, int, std::vector<std::string>>, int64_t> counts;
  int64_t total = 0;
  for (const AlibabaPod& p : pods) {
    if (p.num_gpu == 0) continue;
    ++counts[std::make_tuple(p.gpu_milli, p.num_gpu, NormalSpec(p.gpu_spec))];
    ++total;
  }
  std::vector<WorkloadClass> classes;
  for (const auto& [key, count] : counts) {
    classes.push_back(WorkloadClass{.milli = std::get<0>(key),
                                    .gpus = std::get<1>(key),
                                    .models = std::get<2>(key),
                                    .weight = static_cast<double>(count) /
                                              static_cast<double>(total)});
  }
  return classes;
}

absl::StatusOr<AlibabaReplayResult> ReplayAlibabaWith(const policy::PlacementPolicy& policy,
                                                      std::span<const AlibabaNode> nodes,
                                                      std::span<const AlibabaPod> pods,
                                                      const AlibabaReplayOptions& options,
                                                      policy::ClusterState* final_state,
                                                      policy::RequestMix* mix) {
  absl::StatusOr<policy::Cluster> cluster = AlibabaCluster(nodes);
  if (!cluster.ok()) return cluster.status();
  if (options.max_pods >= 0 && static_cast<size_t>(options.max_pods) < pods.size()) {
    pods = pods.first(static_cast<size_t>(options.max_pods));
  }
  if (options.mode == AlibabaReplayMode::kTimed) {
    for (const AlibabaPod& p : pods) {
      if (!p.has_times) {
        return absl::InvalidArgumentError(absl::StrCat(
            "pod ", p.name, " has no creation or deletion time (a list of requests only); "
            "replay it with --alibaba-mode fill"));
      }
    }
  }
  Replay replay(policy, *cluster, pods, options, mix);
  return replay.Run(final_state);
}

absl::StatusOr<AlibabaReplayResult> ReplayAlibaba(std::span<const AlibabaNode> nodes,
                                                  std::span<const AlibabaPod> pods,
                                                  const AlibabaReplayOptions& options,
                                                  policy::ClusterState* final_state) {
  const AlibabaQuotaPredictor quota;
  const policy::InterferenceModel model;
  const policy::InterferencePredictor* predictor =
      options.interference == AlibabaReplayOptions::Interference::kQuota
          ? static_cast<const policy::InterferencePredictor*>(&quota)
          : &model;
  policy::RequestMix mix;
  policy::RequestMix* const packing_mix = options.packing ? &mix : nullptr;
  const policy::InterferenceAwarePlacement placement(predictor, /*rule=*/nullptr,
                                                     options.placement, packing_mix);
  return ReplayAlibabaWith(placement, nodes, pods, options, final_state, packing_mix);
}

}  // namespace iashim::clustersim
