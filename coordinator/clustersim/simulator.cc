#include "coordinator/clustersim/simulator.h"

#include <utility>

#include "coordinator/clustersim/internal/simulation.h"

namespace iashim::clustersim {

policy::Cluster MakeCluster(const SimConfig& config) {
  policy::Cluster cluster;
  for (int g = 0; g < config.gpus; ++g) {
    policy::GpuInfo info;
    info.id =
        policy::GpuId{sim_internal::HostName(g / config.gpus_per_node), g % config.gpus_per_node};
    info.type = config.gpu_type;
    info.name = config.gpu_type;
    info.memory_bytes = 0;  // unknown: MeasuredPairRule decides who fits together
    cluster.gpus.push_back(std::move(info));
  }
  return cluster;
}

absl::StatusOr<SimResult> Simulate(std::span<const SimJob> jobs, const GavelThroughputs& truth,
                                   const SimConfig& config, const policy::PlacementPolicy& policy,
                                   CoLocationObserver* observer,
                                   const policy::PlacementPolicy* busy_gang_policy) {
  sim_internal::Simulation sim(jobs, truth, config, policy, observer, busy_gang_policy);
  return sim.Run();
}

}  // namespace iashim::clustersim
