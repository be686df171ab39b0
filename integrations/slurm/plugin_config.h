// The iashim SPANK plugin's settings: the arguments after the plugin's path on
// its plugstack.conf line, e.g.
//
//   required /usr/local/lib/iashim/iashim_spank.so coordinator=tcp://head:5555 timeout_s=2
//
// Parsed once per Slurm process that loads the plugin; a bad argument is an
// error that names it, and the plugin then refuses to load (Slurm reports it
// at slurmd start, where a site sees it, rather than job by job).
#ifndef IASHIM_INTEGRATIONS_SLURM_PLUGIN_CONFIG_H_
#define IASHIM_INTEGRATIONS_SLURM_PLUGIN_CONFIG_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace iashim::slurm {

struct PluginConfig {
  // The coordinator's ROUTER endpoint (as IASHIM_COORDINATOR).
  std::string coordinator = "tcp://127.0.0.1:5555";
  // How long one question to the coordinator may take before the job runs as
  // Slurm placed it. It delays the task's start by at most this much.
  double timeout_s = 2.0;
  // A task the coordinator queues (every GPU it may use would be harmed)
  // waits this long for a placement, then runs as Slurm placed it; 0: waits
  // until placed (the job's time limit still applies).
  double queue_wait_s = 0.0;
  // libiashim.so's absolute path; empty: found next to the plugin.
  std::string shim;
  // The coordinator's CurveZMQ public key (40 Z85 characters or a file's
  // path); required for a coordinator beyond loopback.
  std::string coordinator_key;
  // GPU i of this node is the character device <device_prefix><i>.
  std::string device_prefix = "/dev/nvidia";
};

// `args` are plugstack.conf's words after the plugin's path: key=value each.
absl::StatusOr<PluginConfig> ParsePluginArgs(const std::vector<std::string_view>& args);

}  // namespace iashim::slurm

#endif  // IASHIM_INTEGRATIONS_SLURM_PLUGIN_CONFIG_H_
