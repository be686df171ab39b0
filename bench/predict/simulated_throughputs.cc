#include "bench/predict/simulated_throughputs.h"

#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/predict/profile_job.h"
#include "coordinator/cli/json_writer.h"
#include "simgpu/src/collective_cost.h"
#include "simgpu/src/config_parse.h"
#include "simgpu/src/interference_model.h"

namespace iashim::predict {

absl::StatusOr<std::string> SimulatedThroughputsJson(const SimulatedThroughputsOptions& options) {
  if (!(options.seconds > options.warmup_s && options.warmup_s >= 0)) {
    return absl::InvalidArgumentError("seconds must exceed the warm-up, which must be >= 0");
  }
  if (!(options.link_gbps > 0)) return absl::InvalidArgumentError("link_gbps must be > 0");
  if (!(options.fabric_gbps > 0)) return absl::InvalidArgumentError("fabric_gbps must be > 0");
  if (options.gpus_per_node < 1) return absl::InvalidArgumentError("gpus_per_node must be >= 1");
  absl::StatusOr<std::vector<MappedProfile>> mapped =
      ReadGavelMap(options.models_dir + "/gavel_map.txt");
  if (!mapped.ok()) return mapped.status();
  std::erase_if(*mapped, [](const MappedProfile& m) { return m.gavel_key.empty(); });
  if (mapped->empty()) {
    return absl::NotFoundError(
        absl::StrCat(options.models_dir, "/gavel_map.txt maps no profile to a Gavel job type"));
  }
  // The simulated GPU simgpu gives a job when SIMGPU_DEVICES is not set: a V100.
  std::vector<simgpu::DeviceSpec> specs;
  std::string error;
  if (!simgpu::ParseDeviceList(simgpu::kDefaultDevices, "default", &specs, &error)) {
    return absl::InternalError(error);
  }
  const simgpu::DeviceSpec& spec = specs.at(0);
  const simgpu::InterferenceParams params;
  std::vector<simgpu::VirtualJob> jobs;
  std::vector<double> solo;
  std::vector<uint64_t> gradient_bytes;
  for (const MappedProfile& m : *mapped) {
    const std::string path = options.models_dir + "/" + m.model + ".model";
    absl::StatusOr<fakejob::ModelProfile> profile = fakejob::LoadModelProfile(path);
    if (!profile.ok()) return profile.status();
    jobs.push_back(ProfileJob(*profile, spec.sm_count));
    gradient_bytes.push_back(profile->gradient_bytes);
    solo.push_back(
        simgpu::CoSimulate({jobs.back()}, spec, options.seconds, options.warmup_s, params)[0]);
  }
  // rates[a][b]: a's steps/s beside b.
  const size_t n = jobs.size();
  std::vector<std::vector<double>> rates(n, std::vector<double>(n, 0));
  for (size_t a = 0; a < n; ++a) {
    for (size_t b = a; b < n; ++b) {
      const std::vector<double> r =
          simgpu::CoSimulate({jobs[a], jobs[b]}, spec, options.seconds, options.warmup_s, params);
      rates[a][b] = a == b ? (r[0] + r[1]) / 2 : r[0];  // two copies of one job
      rates[b][a] = a == b ? rates[a][b] : r[1];
    }
  }
  cli::JsonWriter w(2);
  w.BeginObject().Key("v100").BeginObject();
  for (size_t a = 0; a < n; ++a) {
    w.Key((*mapped)[a].gavel_key).BeginObject();
    w.Key("null").Double(solo[a]);
    for (size_t b = 0; b < n; ++b) {
      w.Key((*mapped)[b].gavel_key).BeginArray().Double(rates[a][b]).Double(rates[b][a]).EndArray();
    }
    w.EndObject();
  }
  for (size_t a = 0; a < n; ++a) {
    const std::string& key = (*mapped)[a].gavel_key;  // "('<type>', 1)"
    constexpr std::string_view kOneGpu = ", 1)";
    if (gradient_bytes[a] == 0 || !key.ends_with(kOneGpu)) continue;
    const std::string type = key.substr(0, key.size() - kOneGpu.size());
    for (int k : options.gang_sizes) {
      if (k < 2) continue;
      const double ring_gbps =
          simgpu::RingGbps(options.link_gbps, options.fabric_gbps, k > options.gpus_per_node);
      const double iteration_s =
          1 / solo[a] + simgpu::AllReduceNs(gradient_bytes[a], k, ring_gbps) / 1e9;
      w.Key(absl::StrCat(type, ", ", k, ")")).BeginObject().Key("null").Double(k / iteration_s).EndObject();
    }
  }
  w.EndObject();
  // Three jobs on one GPU: a gang's rank beside two one-GPU jobs, when Slurm
  // gives a gang GPUs whose shards are in use (iashim-clustersim
  // --gangs-take-busy-gpus). [job, other, other, the job's steps/s].
  w.Key("v100 triples").BeginArray();
  for (size_t a = 0; a < n; ++a) {
    for (size_t b = a; b < n; ++b) {
      for (size_t c = b; c < n; ++c) {
        const size_t members[3] = {a, b, c};
        const std::vector<double> r = simgpu::CoSimulate({jobs[a], jobs[b], jobs[c]}, spec,
                                                         options.seconds, options.warmup_s, params);
        for (int i = 0; i < 3; ++i) {
          // Copies of one job: one row, their mean (as for a pair with itself).
          if (i > 0 && members[i] == members[i - 1]) continue;  // sorted: copies adjacent
          double sum = 0;
          int copies = 0;
          for (int j = 0; j < 3; ++j) {
            if (members[j] != members[i]) continue;
            sum += r[j];
            ++copies;
          }
          const size_t x = members[(i + 1) % 3], y = members[(i + 2) % 3];
          w.BeginArray()
              .String((*mapped)[members[i]].gavel_key)
              .String((*mapped)[x].gavel_key)
              .String((*mapped)[y].gavel_key)
              .Double(sum / copies)
              .EndArray();
        }
      }
    }
  }
  w.EndArray();
  w.EndObject();
  return w.str() + "\n";
}

}  // namespace iashim::predict
