#include "coordinator/clustersim/alibaba_cli.h"

#include <charconv>
#include <chrono>
#include <cmath>
#include <iostream>
#include <string>
#include <system_error>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "coordinator/clustersim/alibaba_baselines.h"
#include "coordinator/clustersim/alibaba_trace.h"
#include "coordinator/clustersim/flag_error.h"
#include "coordinator/clustersim/text.h"

namespace iashim::clustersim {

std::string AlibabaCliUsage() {
  return "usage: iashim-clustersim --alibaba-nodes FILE --alibaba-pods FILE [--json]\n"
         "                         [--max-pods N] [--alibaba-mode timed|fill]\n"
         "                         [--alibaba-min-gain X] [--alibaba-policy P]\n"
         "                         [--alibaba-interference quota|prior]\n"
         "                         [--alibaba-packing on|off]\n"
         "  Replays Alibaba's 2023 GPU-sharing trace (bench/data/alibaba-v2023/) through\n"
         "  iashim's interference-aware placement (or a packing baseline) and reports\n"
         "  decision latency, queueing, packing and fragmentation.\n"
         "  --alibaba-nodes FILE   the node list (openb_node_list_gpu_node.csv)\n"
         "  --alibaba-pods FILE    the pod list (openb_pod_list_default.csv)\n"
         "  --json                 one JSON object instead of a table\n"
         "  --max-pods N           only the first N pods of the file\n"
         "  --alibaba-mode M       timed (default): pods arrive and leave at the trace's\n"
         "                         times; fill: they arrive in trace order and never\n"
         "                         leave, filling the cluster (the ATC'23 method)\n"
         "  --alibaba-min-gain X   the policy's min_gain (default 0.05): the predicted\n"
         "                         progress sharing a GPU must add\n"
         "  --alibaba-policy P     iashim (default), or a packing baseline on the GPU\n"
         "                         dimension: bestfit (the tightest GPU), firstfit, or\n"
         "                         fgd (the least fragmentation, ATC'23)\n"
         "  --alibaba-interference I  what iashim predicts of pods sharing a GPU: quota\n"
         "                         (default; each runs at its gpu_milli quota) or prior\n"
         "                         (the interference model's prior, 0.68 of solo each)\n"
         "  --alibaba-packing on|off  iashim's fragmentation term (default on)\n";
}

absl::StatusOr<AlibabaCliOptions> ParseAlibabaCliArgs(std::span<const std::string_view> args) {
  AlibabaCliOptions o;
  bool seen_nodes = false, seen_pods = false, seen_max = false, seen_gain = false,
       seen_mode = false, seen_policy = false, seen_interference = false, seen_packing = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view arg = args[i];
    std::string_view value;
    bool has_value = false;
    if (const size_t eq = arg.find('='); arg.starts_with("--") && eq != std::string_view::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_value = true;
    }
    // Options that take a value read it from "--opt=V" or the next argument.
    const auto take = [&](bool* seen) -> absl::StatusOr<std::string_view> {
      if (*seen) return FlagError(arg, "given twice");
      *seen = true;
      if (!has_value) {
        if (i + 1 >= args.size()) return FlagError(arg, "needs a value");
        value = args[++i];
      }
      if (value.empty()) return FlagError(arg, "needs a non-empty value");
      return value;
    };
    if (arg == "--help" || arg == "-h") {
      if (has_value) return FlagError(arg, "takes no value");
      o.help = true;
    } else if (arg == "--json") {
      if (has_value) return FlagError(arg, "takes no value");
      o.json = true;
    } else if (arg == "--alibaba-nodes") {
      absl::StatusOr<std::string_view> v = take(&seen_nodes);
      if (!v.ok()) return v.status();
      o.nodes_file = std::string(*v);
    } else if (arg == "--alibaba-pods") {
      absl::StatusOr<std::string_view> v = take(&seen_pods);
      if (!v.ok()) return v.status();
      o.pods_file = std::string(*v);
    } else if (arg == "--max-pods") {
      absl::StatusOr<std::string_view> v = take(&seen_max);
      if (!v.ok()) return v.status();
      int64_t n = 0;
      const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
      if (ec != std::errc() || end != v->data() + v->size() || n < 0 || (*v)[0] == '-') {
        return FlagError(arg, absl::StrCat("'", Av(*v), "' is not a non-negative integer"));
      }
      o.max_pods = n;
    } else if (arg == "--alibaba-mode") {
      absl::StatusOr<std::string_view> v = take(&seen_mode);
      if (!v.ok()) return v.status();
      if (*v == "timed") {
        o.mode = AlibabaReplayMode::kTimed;
      } else if (*v == "fill") {
        o.mode = AlibabaReplayMode::kFill;
      } else {
        return FlagError(arg, absl::StrCat("'", Av(*v), "' is not timed or fill"));
      }
    } else if (arg == "--alibaba-policy") {
      absl::StatusOr<std::string_view> v = take(&seen_policy);
      if (!v.ok()) return v.status();
      if (*v != "iashim" && *v != "bestfit" && *v != "firstfit" && *v != "fgd") {
        return FlagError(arg,
                         absl::StrCat("'", Av(*v), "' is not iashim, bestfit, firstfit or fgd"));
      }
      o.policy = std::string(*v);
    } else if (arg == "--alibaba-interference") {
      absl::StatusOr<std::string_view> v = take(&seen_interference);
      if (!v.ok()) return v.status();
      if (*v == "quota") {
        o.interference = AlibabaReplayOptions::Interference::kQuota;
      } else if (*v == "prior") {
        o.interference = AlibabaReplayOptions::Interference::kPrior;
      } else {
        return FlagError(arg, absl::StrCat("'", Av(*v), "' is not quota or prior"));
      }
    } else if (arg == "--alibaba-packing") {
      absl::StatusOr<std::string_view> v = take(&seen_packing);
      if (!v.ok()) return v.status();
      if (*v != "on" && *v != "off") {
        return FlagError(arg, absl::StrCat("'", Av(*v), "' is not on or off"));
      }
      o.packing = *v == "on";
    } else if (arg == "--alibaba-min-gain") {
      absl::StatusOr<std::string_view> v = take(&seen_gain);
      if (!v.ok()) return v.status();
      double x = 0;
      const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), x);
      if (ec != std::errc() || end != v->data() + v->size() || !std::isfinite(x)) {
        return FlagError(arg, absl::StrCat("'", Av(*v), "' is not a finite number"));
      }
      o.min_gain = x;
    } else {
      return FlagError(arg, "unknown argument for the Alibaba replay (see --help)");
    }
  }
  if (o.help) return o;
  if (!seen_nodes) return FlagError("--alibaba-nodes", "is required");
  if (!seen_pods) return FlagError("--alibaba-pods", "is required");
  if (o.policy != "iashim") {
    for (const auto& [seen, flag] : {std::pair{seen_gain, "--alibaba-min-gain"},
                                     std::pair{seen_interference, "--alibaba-interference"},
                                     std::pair{seen_packing, "--alibaba-packing"}}) {
      if (seen) return FlagError(flag, "applies to --alibaba-policy iashim only");
    }
  }
  return o;
}

std::string AlibabaResultJson(const AlibabaReplayResult& r, const AlibabaReplayOptions& options,
                              std::string_view policy, double load_s) {
  std::string j = "{";
  const auto field = [&j](std::string_view name, const auto& value) {
    if (j.size() > 1) j += ",";
    if constexpr (std::is_floating_point_v<std::decay_t<decltype(value)>>) {
      // JSON has no NaN or infinity.
      absl::StrAppend(&j, "\"", Av(name),
                      "\":", std::isfinite(value) ? absl::StrFormat("%.6g", value) : "null");
    } else if constexpr (std::is_integral_v<std::decay_t<decltype(value)>>) {
      absl::StrAppend(&j, "\"", Av(name), "\":", value);
    } else {
      absl::StrAppend(&j, "\"", Av(name), "\":\"", Av(value), "\"");
    }
  };
  field("trace", std::string_view("alibaba-v2023"));
  field("mode", std::string_view(options.mode == AlibabaReplayMode::kFill ? "fill" : "timed"));
  field("policy", policy);
  if (policy == "iashim") {  // the baselines have no such settings
    field("min_gain", options.placement.min_gain);
    field("interference", std::string_view(
                              options.interference == AlibabaReplayOptions::Interference::kQuota
                                  ? "quota"
                                  : "prior"));
    field("packing", std::string_view(options.packing ? "on" : "off"));
  }
  field("max_jobs_per_gpu", options.placement.max_jobs_per_gpu);
  field("nodes", r.nodes);
  field("gpus", r.gpus);
  field("pods", r.pods);
  field("gpu_pods", r.gpu_pods);
  field("skipped", r.skipped);
  field("arrivals", r.arrivals);
  field("placed", r.placed);
  field("placed_at_once", r.placed_at_once);
  field("waited", r.waited);
  field("never_placed", r.never_placed);
  field("rejected", r.rejected);
  field("max_queue", r.max_queue);
  field("wait_mean_s", r.wait_mean_s);
  field("wait_p50_s", r.wait_p50_s);
  field("wait_p99_s", r.wait_p99_s);
  field("wait_max_s", r.wait_max_s);
  field("decisions", r.decisions);
  field("latency_mean_us", r.latency_mean_us);
  field("latency_p50_us", r.latency_p50_us);
  field("latency_p99_us", r.latency_p99_us);
  field("latency_max_us", r.latency_max_us);
  field("cpu_p50_us", r.cpu_p50_us);
  field("cpu_p99_us", r.cpu_p99_us);
  field("cpu_max_us", r.cpu_max_us);
  field("place_total_s", r.place_total_s);
  field("wall_s", r.wall_s);
  field("load_s", load_s);
  field("frag_samples", r.samples);
  field("frag_partial_mean", r.frag_partial_mean);
  field("frag_workload_mean", r.frag_workload_mean);
  field("frag_workload_empty", r.frag_workload_empty);
  field("alloc_rate_mean", r.alloc_rate_mean);
  field("peak_alloc_rate", r.peak.alloc_rate);
  field("peak_allocated_milli", r.peak.allocated_milli);
  field("peak_free_milli", r.peak.free_milli);
  field("peak_frag_partial", r.peak.partial_share);
  field("peak_frag_workload", r.peak.workload_share);
  field("peak_time_s", r.peak_time_s);
  field("peak_arrivals", r.peak_arrivals);
  field("peak_running", r.peak_running);
  field("end_time_s", r.end_time_s);
  j += "}";
  return j;
}

std::string AlibabaResultTable(const AlibabaReplayResult& r, const AlibabaReplayOptions& options,
                               std::string_view policy, double load_s) {
  std::string t;
  const auto row = [&t](std::string_view name, std::string_view value) {
    absl::StrAppendFormat(&t, "  %-34s %s\n", Av(name), Av(value));
  };
  const auto pct = [](double x) { return absl::StrFormat("%.1f%%", 100 * x); };
  absl::StrAppend(&t, "Alibaba 2023 replay (",
                  options.mode == AlibabaReplayMode::kFill ? "fill" : "timed", ") through ",
                  policy == "iashim"
                      ? absl::StrCat("iashim placement (min_gain ",
                                     absl::StrFormat("%g", options.placement.min_gain),
                                     ", max_jobs_per_gpu ", options.placement.max_jobs_per_gpu,
                                     ", interference ",
                                     options.interference ==
                                             AlibabaReplayOptions::Interference::kQuota
                                         ? "quota"
                                         : "prior",
                                     ", packing ", options.packing ? "on" : "off", ")")
                      : absl::StrCat(Av(policy), " (GPU dimension only)"),
                  "\n");
  row("cluster", absl::StrFormat("%d nodes, %d GPUs", r.nodes, r.gpus));
  row("pods", absl::StrFormat("%d read, %d skipped (num_gpu 0), %d replayed", r.pods, r.skipped,
                              r.gpu_pods));
  row("placed", absl::StrFormat("%d (%d at once)", r.placed, r.placed_at_once));
  row("waited / never placed / rejected",
      absl::StrFormat("%d / %d / %d", r.waited, r.never_placed, r.rejected));
  row("wait mean / p50 / p99 / max",
      absl::StrFormat("%.0f s / %.0f s / %.0f s / %.0f s", r.wait_mean_s, r.wait_p50_s,
                      r.wait_p99_s, r.wait_max_s));
  row("longest queue", absl::StrCat(r.max_queue));
  row("decisions (Place calls)", absl::StrCat(r.decisions));
  row("latency mean / p50 / p99 / max",
      absl::StrFormat("%.1f us / %.1f us / %.1f us / %.1f us", r.latency_mean_us, r.latency_p50_us,
                      r.latency_p99_us, r.latency_max_us));
  row("thread CPU p50 / p99 / max",
      absl::StrFormat("%.1f us / %.1f us / %.1f us", r.cpu_p50_us, r.cpu_p99_us, r.cpu_max_us));
  row("p99 goal (<= 1 ms)", r.latency_p99_us <= 1000 ? "met" : "MISSED");
  row("replay wall / in Place / loading",
      absl::StrFormat("%.3f s / %.3f s / %.3f s", r.wall_s, r.place_total_s, load_s));
  row("fragmentation samples", absl::StrCat(r.samples));
  row("mean alloc rate", pct(r.alloc_rate_mean));
  row("mean free on partial GPUs", pct(r.frag_partial_mean));
  row("mean free unusable by workload", pct(r.frag_workload_mean));
  row("  (the empty cluster's baseline)", pct(r.frag_workload_empty));
  row("peak alloc rate", absl::StrFormat("%s at t=%.0f s, %d pods running", pct(r.peak.alloc_rate),
                                         r.peak_time_s, r.peak_running));
  row("peak free on partial GPUs", pct(r.peak.partial_share));
  row("peak free unusable by workload", pct(r.peak.workload_share));
  return t;
}

int RunAlibabaCli(std::span<const std::string_view> args, std::ostream& out, std::ostream& err) {
  absl::StatusOr<AlibabaCliOptions> o = ParseAlibabaCliArgs(args);
  if (!o.ok()) {
    err << "iashim-clustersim: " << o.status().message() << "\n" << AlibabaCliUsage();
    return 2;
  }
  if (o->help) {
    out << AlibabaCliUsage();
    return 0;
  }
  const auto begin = std::chrono::steady_clock::now();
  absl::StatusOr<std::vector<AlibabaNode>> nodes = ReadAlibabaNodesFile(o->nodes_file);
  if (!nodes.ok()) {
    err << "iashim-clustersim: --alibaba-nodes: " << nodes.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<std::vector<AlibabaPod>> pods = ReadAlibabaPodsFile(o->pods_file);
  if (!pods.ok()) {
    err << "iashim-clustersim: --alibaba-pods: " << pods.status().message() << "\n";
    return 1;
  }
  const double load_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();

  AlibabaReplayOptions options;
  options.max_pods = o->max_pods;
  options.mode = o->mode;
  if (o->min_gain.has_value()) options.placement.min_gain = *o->min_gain;
  options.interference = o->interference;
  options.packing = o->packing;
  absl::StatusOr<AlibabaReplayResult> result = absl::InternalError("no policy");
  if (o->policy == "bestfit") {
    result = ReplayAlibabaWith(AlibabaBestFit(), *nodes, *pods, options);
  } else if (o->policy == "firstfit") {
    result = ReplayAlibabaWith(AlibabaFirstFit(), *nodes, *pods, options);
  } else if (o->policy == "fgd") {
    policy::RequestMix mix;
    result = ReplayAlibabaWith(AlibabaFgd(&mix), *nodes, *pods, options, nullptr, &mix);
  } else {
    result = ReplayAlibaba(*nodes, *pods, options);
  }
  if (!result.ok()) {
    err << "iashim-clustersim: Alibaba replay: " << result.status().message() << "\n";
    return 1;
  }
  if (o->json) {
    out << AlibabaResultJson(*result, options, o->policy, load_s) << "\n";
  } else {
    out << AlibabaResultTable(*result, options, o->policy, load_s);
  }
  return out.good() ? 0 : 1;
}

int RunAlibabaCli(int argc, char** argv) {
  std::vector<std::string_view> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  return RunAlibabaCli(args, std::cout, std::cerr);
}

}  // namespace iashim::clustersim
