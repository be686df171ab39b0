// Which nodes the coordinator still hears from. It has no agent of its own on
// the nodes: it hears a node through the shims of the jobs running there. A
// node is lost when every job on it that was connected fell silent without a
// Goodbye (a process that ends says Goodbye; a node that dies, or is cut off,
// does not) and nothing from it has been heard since; it is alive again once
// any shim on it is heard (a Hello from a job started after a restart).
//
// With a single job on a node, that job's process dying and the node dying
// look the same: the node is shown lost until a shim there is heard again.
// A job is never placed on a lost node by a question of where it would go (a
// dry run: job_submit.lua binds the job to the node it is told), since Slurm
// may not know yet that the node is down (SlurmdTimeout) and the job would
// pend for it; such a job goes elsewhere, or is left to Slurm. A job Slurm
// started there is placed there: its request comes from the node, which is
// up. Lost nodes are not otherwise left out: with no agent there, the
// coordinator would never hear that they came back. Slurm, which does have
// one (slurmd), keeps jobs off a node that is down.
#ifndef IASHIM_COORDINATOR_DAEMON_NODE_HEALTH_H_
#define IASHIM_COORDINATOR_DAEMON_NODE_HEALTH_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace iashim::daemon {

class NodeHealth {
 public:
  // A message from a shim of a job on `host`. True when that ends the node's
  // loss (it is back).
  bool Heard(const std::string& host, int64_t now_ns);
  // A job on `host` fell silent past the heartbeat timeout; `others_connected`:
  // whether any other job on the host is still connected. True when that makes
  // the node lost (it was not).
  bool JobWentSilent(const std::string& host, bool others_connected);

  // How long `host` has been lost (since it was last heard); nullopt when it
  // is not lost (alive, or never heard of).
  std::optional<double> LostForS(const std::string& host, int64_t now_ns) const;
  size_t lost_count() const;
  // The hosts lost now, in name order.
  std::vector<std::string> LostHosts() const;

 private:
  struct Node {
    int64_t last_heard_ns = 0;
    bool lost = false;
  };
  std::map<std::string, Node> nodes_;
};

}  // namespace iashim::daemon

#endif  // IASHIM_COORDINATOR_DAEMON_NODE_HEALTH_H_
