// iashim-simgpu-throughputs: simgpu's device model's steps/s for the bundled
// profiles alone and in pairs, in Gavel's simulation_throughputs.json format
// (simulated_throughputs.h), for `iashim-clustersim --throughputs`.
//
//   iashim-simgpu-throughputs [--models DIR] [--seconds S] [--link-gbps G]
//                             [--gpus-per-node N] [--fabric-gbps F] [--out FILE]
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>

#include "bench/predict/simulated_throughputs.h"
#include "common/text/text.h"

namespace {

constexpr const char* kUsage =
    "usage: iashim-simgpu-throughputs [--models DIR] [--seconds S] [--link-gbps G]\n"
    "                                 [--gpus-per-node N] [--fabric-gbps F] [--out FILE]\n"
    "  --models DIR        the model profiles and their gavel_map.txt (default:\n"
    "                      $IASHIM_MODELS_DIR, else bench/data/models of this source tree)\n"
    "  --seconds S         virtual seconds simulated per job and per pair, 5..600 (default 20)\n"
    "  --link-gbps G       the bus bandwidth a multi-GPU job's all-reduce gets within a node,\n"
    "                      GB/s, 0.01..100000, as SIMGPU_LINK_GBPS gives it to simgpu\n"
    "                      (default: simgpu's own, 150)\n"
    "  --gpus-per-node N   GPUs per node, 1..64: a gang of more than N ranks (2, 4, 8, 16\n"
    "                      and 32 are written) spans nodes (default 4)\n"
    "  --fabric-gbps F     the bandwidth between nodes, GB/s, 0.01..100000, as\n"
    "                      SIMGPU_FABRIC_GBPS gives it to simgpu: a gang spanning nodes\n"
    "                      all-reduces at the lesser of G and F (default: simgpu's own, 12.5)\n"
    "  --out FILE          where to write the JSON (default: standard output)\n";

int Usage(const std::string& error) {
  std::fprintf(stderr, "iashim-simgpu-throughputs: %s\n%s", error.c_str(), kUsage);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  iashim::predict::SimulatedThroughputsOptions options;
  const char* env_models = std::getenv("IASHIM_MODELS_DIR");
  options.models_dir = env_models != nullptr && *env_models != '\0'
                           ? env_models
                           : std::string(IASHIM_SOURCE_DIR) + "/bench/data/models";
  std::string out_path;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (a != "--models" && a != "--seconds" && a != "--link-gbps" && a != "--gpus-per-node" &&
        a != "--fabric-gbps" && a != "--out") {
      return Usage("unknown argument '" + a + "'");
    }
    if (i + 1 >= argc) return Usage(a + " needs a value");
    const std::string v = argv[++i];
    if (a == "--models") {
      options.models_dir = v;
    } else if (a == "--seconds") {
      const std::optional<double> s = iashim::ParseDouble(v, 5, 600);
      if (!s) return Usage("--seconds must be a number 5..600 (got '" + v + "')");
      options.seconds = *s;
    } else if (a == "--link-gbps") {
      const std::optional<double> g = iashim::ParseDouble(v, 0.01, 100000);
      if (!g) return Usage("--link-gbps must be a number 0.01..100000 (got '" + v + "')");
      options.link_gbps = *g;
    } else if (a == "--gpus-per-node") {
      const std::optional<int64_t> n = iashim::ParseInt(v, 1, 64);
      if (!n) return Usage("--gpus-per-node must be a whole number 1..64 (got '" + v + "')");
      options.gpus_per_node = static_cast<int>(*n);
    } else if (a == "--fabric-gbps") {
      const std::optional<double> f = iashim::ParseDouble(v, 0.01, 100000);
      if (!f) return Usage("--fabric-gbps must be a number 0.01..100000 (got '" + v + "')");
      options.fabric_gbps = *f;
    } else {
      out_path = v;
    }
  }
  const absl::StatusOr<std::string> json = iashim::predict::SimulatedThroughputsJson(options);
  if (!json.ok()) {
    std::fprintf(stderr, "iashim-simgpu-throughputs: %s\n", std::string(json.status().message()).c_str());
    return 1;
  }
  if (out_path.empty()) {
    std::fputs(json->c_str(), stdout);
    return 0;
  }
  std::ofstream out(out_path);
  if (!(out << *json) || !out.flush()) {
    std::fprintf(stderr, "iashim-simgpu-throughputs: cannot write %s\n", out_path.c_str());
    return 1;
  }
  return 0;
}
