// What one placement decision costs on the Alibaba 2023 cluster (1,213
// nodes, 6,212 GPUs). Goal (the scale issue): p99 <= 1 ms per decision.
//
// The state is the cluster at its peak: the trace's GPU pods placed in
// order, none leaving, by iashim's own policy (alibaba_replay.h, fill mode),
// so every GPU holds pods and every request goes through the scoring path.
// "Empty" is the same cluster with nothing placed (the exclusive path).
//
//   BM_Place/<state>/<request>/<packing>
//     state:   0 empty, 1 peak
//     request: 0 a 460-milli share of one GPU (the commonest fractional ask),
//              1 a whole GPU, 2 a gang of 8 whole GPUs
//     packing: 0 the interference prior, no fragmentation term (the empty
//              cluster's share then takes the exclusive path); 1 what the
//              replay runs by default: quotas, and the fragmentation term
//              over the mix of all the trace's GPU pods (every non-empty GPU
//              scored)
//
// The trace is read from $IASHIM_ALIBABA_DIR, else from the source tree.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "coordinator/clustersim/alibaba_replay.h"
#include "coordinator/clustersim/alibaba_trace.h"
#include "coordinator/policy/interference_model.h"
#include "coordinator/policy/interference_placement.h"

namespace iashim::clustersim {
namespace {

struct States {
  policy::ClusterState empty;
  policy::ClusterState peak;
  AlibabaReplayResult fill;
  policy::RequestMix mix;
};

const States& Load() {
  static const States* states = [] {
    const char* env = std::getenv("IASHIM_ALIBABA_DIR");
    const std::string dir =
        env != nullptr ? env : std::string(IASHIM_SOURCE_DIR) + "/bench/data/alibaba-v2023";
    absl::StatusOr<std::vector<AlibabaNode>> nodes =
        ReadAlibabaNodesFile(dir + "/openb_node_list_gpu_node.csv");
    absl::StatusOr<std::vector<AlibabaPod>> pods =
        ReadAlibabaPodsFile(dir + "/openb_pod_list_default.csv");
    if (!nodes.ok() || !pods.ok()) {
      std::fprintf(stderr, "placement_bench: %s\n",
                   std::string(!nodes.ok() ? nodes.status().message() : pods.status().message())
                       .c_str());
      std::exit(1);
    }
    auto* s = new States;
    AlibabaReplayOptions options;
    options.mode = AlibabaReplayMode::kFill;
    absl::StatusOr<AlibabaReplayResult> fill = ReplayAlibaba(*nodes, *pods, options, &s->peak);
    absl::StatusOr<policy::Cluster> cluster = AlibabaCluster(*nodes);
    if (!fill.ok() || !cluster.ok()) {
      std::fprintf(stderr, "placement_bench: %s\n",
                   std::string(!fill.ok() ? fill.status().message() : cluster.status().message())
                       .c_str());
      std::exit(1);
    }
    s->fill = *fill;
    for (const AlibabaPod& p : *pods) {
      if (p.num_gpu > 0) s->mix.Observe(p.num_gpu, AlibabaMemBytes(p));
    }
    s->empty.cluster = *std::move(cluster);
    return s;
  }();
  return *states;
}

policy::PlacementRequest Request(int kind) {
  policy::PlacementRequest r;
  r.job = "bench-pod";  // not placed: every call decides afresh
  r.priority = policy::Priority::kOpportunistic;
  r.traits.kind = "alibaba-pod";
  switch (kind) {
    case 0:
      r.mem_bytes = 460;
      break;
    case 1:
      r.mem_bytes = 0;
      break;
    default:
      r.mem_bytes = 0;
      r.gpu_count = 8;
      break;
  }
  return r;
}

void BM_Place(benchmark::State& bench) {
  const States& s = Load();
  const policy::ClusterState& state = bench.range(0) == 0 ? s.empty : s.peak;
  const policy::PlacementRequest request = Request(static_cast<int>(bench.range(1)));
  const bool packing = bench.range(2) == 1;
  const policy::InterferenceModel model;
  const AlibabaQuotaPredictor quota;
  const policy::InterferencePredictor* predictor =
      packing ? static_cast<const policy::InterferencePredictor*>(&quota) : &model;
  const policy::InterferenceAwarePlacement placement(
      predictor, nullptr, AlibabaReplayOptions().placement, packing ? &s.mix : nullptr);
  int placed = 0;
  for (auto _ : bench) {
    policy::PlacementDecision d = placement.Place(request, state);
    placed += d.outcome == policy::PlacementDecision::Outcome::kPlaced;
    benchmark::DoNotOptimize(d);
  }
  bench.counters["gpus"] = static_cast<double>(state.cluster.gpus.size());
  bench.counters["pods_placed"] = static_cast<double>(
      bench.range(0) == 0 ? 0 : s.fill.placed);
  bench.counters["placed_share"] =
      bench.iterations() > 0 ? static_cast<double>(placed) / static_cast<double>(bench.iterations())
                             : 0;
}
BENCHMARK(BM_Place)
    ->ArgNames({"state", "request", "packing"})
    ->ArgsProduct({{0, 1}, {0, 1, 2}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace iashim::clustersim

BENCHMARK_MAIN();
