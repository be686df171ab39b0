// What simgpu's device model gives the bundled model profiles alone and two
// by two on one GPU, written in the format of Gavel's
// simulation_throughputs.json. iashim-clustersim replays a trace against it
// as it does against Gavel's measured V100s, so the simulator predicts what
// the same jobs measure live on simgpu (issue 20, simulator vs live).
#ifndef IASHIM_BENCH_PREDICT_SIMULATED_THROUGHPUTS_H_
#define IASHIM_BENCH_PREDICT_SIMULATED_THROUGHPUTS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "simgpu/src/collective_cost.h"

namespace iashim::predict {

struct SimulatedThroughputsOptions {
  std::string models_dir;  // bench/data/models: gavel_map.txt and the profiles
  double seconds = 20;     // virtual time simulated per job or pair
  double warmup_s = 2;     // left out of the rates
  // The links a gang's all-reduce crosses: simgpu's default unless the
  // cluster sets SIMGPU_LINK_GBPS (simgpu/src/collective_cost.h).
  double link_gbps = simgpu::kDefaultLinkGbps;
  // A node's GPUs: a gang of more ranks spans nodes, and its ring crosses the
  // fabric between them at `fabric_gbps` if that is slower than the links
  // (SIMGPU_FABRIC_GBPS; simgpu/src/collective_cost.h). 4: the cluster's nodes
  // (scripts/cluster-up.sh) and Gavel's V100 servers.
  int gpus_per_node = 4;
  double fabric_gbps = simgpu::kDefaultFabricGbps;
  // The multi-GPU entries written: Gavel's Philly traces have jobs of 8, 16
  // and 32 GPUs too.
  std::vector<int> gang_sizes = {2, 4, 8, 16, 32};
};

// {"v100": {"('<type>', 1)": {"null": steps/s alone, "('<other>', 1)": [its
// steps/s, the other's], ...}, ...}}: every profile gavel_map.txt maps to a
// Gavel job type, under that type, and every pair of them, each with itself
// too. Steps are the profile's iterations; its solo rate is within 10% of
// Gavel's for its type (shipped_profiles_test). For each k of gang_sizes and
// each profile with a gradient size, "('<type>', k)": {"null": steps/s} of
// k data-parallel ranks (iashim-fakejob --ranks k), read as Gavel reads its
// multi-GPU figures: k steps per iteration, an iteration being the solo one
// plus the ring all-reduce of the gradients (bench/data/models/README.md), at
// the links' bandwidth for k <= gpus_per_node, else at min(links, fabric).
// A gang's rank beside other jobs (Slurm 22.05's shards, iashim-clustersim
// --gangs-take-busy-gpus) runs as its one-GPU type does. And
// "v100 triples": [[job, other, other, the job's steps/s], ...] for every
// three of the profiles (repeats included) on one GPU.
absl::StatusOr<std::string> SimulatedThroughputsJson(const SimulatedThroughputsOptions& options);

}  // namespace iashim::predict

#endif  // IASHIM_BENCH_PREDICT_SIMULATED_THROUGHPUTS_H_
