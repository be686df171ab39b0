#include "coordinator/daemon/node_health.h"

#include <algorithm>
#include <utility>

namespace iashim::daemon {

bool NodeHealth::Heard(const std::string& host, int64_t now_ns) {
  if (host.empty()) return false;
  Node& n = nodes_[host];
  n.last_heard_ns = std::max(n.last_heard_ns, now_ns);
  return std::exchange(n.lost, false);
}

bool NodeHealth::JobWentSilent(const std::string& host, bool others_connected) {
  const auto it = nodes_.find(host);
  if (it == nodes_.end() || others_connected) return false;
  return !std::exchange(it->second.lost, true);
}

std::optional<double> NodeHealth::LostForS(const std::string& host, int64_t now_ns) const {
  const auto it = nodes_.find(host);
  if (it == nodes_.end() || !it->second.lost) return std::nullopt;
  return double(std::max<int64_t>(0, now_ns - it->second.last_heard_ns)) / 1e9;
}

size_t NodeHealth::lost_count() const {
  return size_t(std::count_if(nodes_.begin(), nodes_.end(),
                              [](const auto& n) { return n.second.lost; }));
}

std::vector<std::string> NodeHealth::LostHosts() const {
  std::vector<std::string> hosts;
  for (const auto& [host, node] : nodes_) {
    if (node.lost) hosts.push_back(host);
  }
  return hosts;
}

}  // namespace iashim::daemon
