#include "coordinator/policy/internal/whole_node_placement.h"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "coordinator/policy/internal/placement_reasons.h"
#include "coordinator/policy/internal/placement_scorer.h"

namespace iashim::policy::placement_internal {
namespace {

// What a whole node is worth to a job wider than a node: it runs at its
// slowest rank's pace, so the least any GPU there leaves the job, then what
// the residents lose.
struct NodeChoice {
  size_t node = 0;  // into Scope::nodes
  double p_new = 1;
  double loss = 0;
};

}  // namespace

PlacementDecision PlaceOnWholeNodes(const PlacementRequest& r, const Scope& scope,
                                    const std::string& where,
                                    const InterferencePredictor* predictor, const ShareRule* rule,
                                    const InterferenceAwarePlacement::Options& options) {
  const std::vector<GpuView>& views = scope.views;
  const size_t per_node = LargestNode(scope);
  const size_t k = static_cast<size_t>(r.gpu_count);
  if (per_node == 0 || k % per_node != 0) {
    return PlacementDecision::Rejected(
        absl::StrCat("a job of ", k, " GPUs is wider than a node of ", per_node, " on ", where,
                     " and not whole nodes: ask for a multiple of ", per_node));
  }
  const size_t wanted = k / per_node;
  size_t whole = 0;
  for (size_t n = 0; n + 1 < scope.nodes.size(); ++n) {
    bool fits = scope.nodes[n + 1] - scope.nodes[n] == per_node;
    for (size_t i = scope.nodes[n]; fits && i < scope.nodes[n + 1]; ++i) fits = views[i].fits_ever;
    whole += fits ? 1 : 0;
  }
  if (whole < wanted) {
    return PlacementDecision::Rejected(
        absl::StrCat("a job of ", k, " GPUs needs ", wanted, " whole nodes of ", per_node, " with ",
                     Asked(r.mem_bytes), " a GPU; ", where, " has ", whole));
  }
  // `past_gangs`: as if the gangs there had ended (a preference for later).
  // `blocker` (may be null: not wanted) gets why the first GPU that cannot
  // take the job cannot, never past gangs (it would name a trimmed view).
  const auto choose = [&](const PlacementRequest& request, Blocker* blocker, bool past_gangs) {
    std::vector<NodeChoice> nodes;
    std::optional<Scorer> scorer;
    if (predictor != nullptr) scorer.emplace(request, *predictor, rule, options);
    std::vector<PlacedJob> others;
    GpuView without_gangs;
    Blocker unread;
    if (blocker == nullptr || past_gangs) blocker = &unread;
    for (size_t n = 0; n + 1 < scope.nodes.size(); ++n) {
      if (scope.nodes[n + 1] - scope.nodes[n] != per_node) continue;
      NodeChoice c{.node = n};
      bool fits = true;
      for (size_t i = scope.nodes[n]; fits && i < scope.nodes[n + 1]; ++i) {
        // The scope's own view: a blocker keeps a pointer to it, read once
        // this returns (a copy here once left it dangling).
        const GpuView* v = &views[i];
        if (past_gangs) {
          others.clear();
          for (const PlacedJob& j : views[i].jobs) {
            if (j.gpu_count <= 1) others.push_back(j);
          }
          without_gangs = views[i];
          // The loop's floor may be a gang's doing: said of now, not of then.
          if (others.size() < views[i].jobs.size()) without_gangs.at_floor = false;
          without_gangs.jobs = others;
          v = &without_gangs;
        }
        fits = v->fits_ever;
        if (!fits || v->jobs.empty()) continue;
        fits = JoinsBusyGpus(request) && scorer.has_value() &&
               std::none_of(v->jobs.begin(), v->jobs.end(),
                            [](const PlacedJob& j) { return j.gpu_count > 1; });
        GpuScore s;
        fits = fits && scorer->Score(*v, &s, blocker);
        c.p_new = std::min(c.p_new, s.p_new);
        c.loss += s.loss;
      }
      if (fits) nodes.push_back(c);
    }
    std::stable_sort(nodes.begin(), nodes.end(), [](const NodeChoice& a, const NodeChoice& b) {
      return a.p_new != b.p_new ? a.p_new > b.p_new : a.loss < b.loss;
    });
    if (nodes.size() > wanted) nodes.resize(wanted);
    return nodes;
  };
  // Their hosts and GPUs, in node order.
  const auto in_node_order = [&](std::vector<NodeChoice>& nodes, std::vector<std::string>* hosts,
                                 std::vector<size_t>* gpus) {
    std::sort(nodes.begin(), nodes.end(),
              [](const NodeChoice& a, const NodeChoice& b) { return a.node < b.node; });
    for (const NodeChoice& c : nodes) {
      hosts->push_back(views[scope.nodes[c.node]].gpu->id.host);
      for (size_t i = scope.nodes[c.node]; i < scope.nodes[c.node + 1]; ++i) gpus->push_back(i);
    }
  };
  Blocker blocker;
  std::vector<NodeChoice> chosen = choose(r, &blocker, false);
  // Too few without a guaranteed job: beside one, the nodes chosen as for
  // an opportunistic job (PlacementDecision::beside_guaranteed).
  bool beside_guaranteed = false;
  PlacementRequest as_opportunistic = r;
  as_opportunistic.priority = Priority::kOpportunistic;
  const bool may_join_guaranteed = r.priority == Priority::kGuaranteed && JoinsBusyGpus(r);
  if (chosen.size() < wanted && may_join_guaranteed) {
    chosen = choose(as_opportunistic, nullptr, false);
    beside_guaranteed = chosen.size() == wanted;
  }
  if (chosen.size() < wanted) {
    std::string reason = absl::StrCat("no ", wanted, " whole nodes on ", where,
                                      " can take a job of ", k, " GPUs now");
    if (blocker.why != Blocker::Why::kNone) {
      absl::StrAppend(&reason, " (e.g. ", Explain(blocker, r, options.max_jobs_per_gpu), ")");
    }
    PlacementDecision d = PlacementDecision::Queued(std::move(reason));
    if (JoinsBusyGpus(r)) {
      // Where it would go once the gangs there end, for the scheduler to
      // prefer then (the job waits in its queue meanwhile).
      std::vector<NodeChoice> later = choose(r, nullptr, true);
      if (later.size() < wanted && may_join_guaranteed) {
        later = choose(as_opportunistic, nullptr, true);
      }
      if (later.size() == wanted) {
        std::vector<std::string> hosts;
        std::vector<size_t> gpus;
        in_node_order(later, &hosts, &gpus);
        for (size_t i : gpus) d.preferred.push_back(views[i].gpu->id);
        absl::StrAppend(&d.reason, "; once the gangs there end, whole nodes ",
                        absl::StrJoin(hosts, ", "));
      }
    }
    return d;
  }
  double p_new = 1, loss = 0;
  for (const NodeChoice& c : chosen) {
    p_new = std::min(p_new, c.p_new);
    loss += c.loss;
  }
  std::vector<std::string> hosts;
  std::vector<size_t> gpus;
  in_node_order(chosen, &hosts, &gpus);
  PlacementDecision d =
      PlacedOn(views, gpus,
               absl::StrFormat("whole nodes %s: the job at %.2f of its speed, residents lose %.3f",
                               absl::StrJoin(hosts, ", "), p_new, loss));
  d.beside_guaranteed = beside_guaranteed;
  if (beside_guaranteed) {
    absl::StrAppend(&d.reason, BesideGuaranteed(GuaranteedOn(views, d.gpus)));
  }
  return d;
}

}  // namespace iashim::policy::placement_internal
