#include "coordinator/top/subscriber.h"

#include <stdexcept>
#include <utility>

namespace iashim::top {
namespace {

// A bound on one Drain, so a flood cannot starve the keyboard: what is left
// is taken on the next turn of the loop (zmq::poll returns at once).
constexpr int kMaxPerDrain = 1000;

}  // namespace

Subscriber::Subscriber(zmq::context_t& context, const std::string& endpoint,
                       const security::ClientKeys& keys)
    : socket_(context, zmq::socket_type::sub) {
  if (std::string error; !security::ApplyClientKeys(socket_.handle(), keys, &error)) {
    throw std::runtime_error("CurveZMQ: " + error);
  }
  socket_.set(zmq::sockopt::subscribe, "");
  socket_.set(zmq::sockopt::linger, 0);
  // Snapshots are replaced, not accumulated: a short queue loses nothing
  // worth having when we fall behind.
  socket_.set(zmq::sockopt::rcvhwm, 100);
  socket_.set(zmq::sockopt::reconnect_ivl, 100);
  socket_.set(zmq::sockopt::reconnect_ivl_max, 2000);
  // A snapshot of a large cluster is some hundreds of KiB; anything near this
  // is not one, and ZeroMQ drops the peer before we allocate it.
  socket_.set(zmq::sockopt::maxmsgsize, int64_t{64} << 20);
  socket_.connect(endpoint);
}

std::optional<ClusterView> Subscriber::Drain() {
  bool have_newest = false;
  zmq::message_t msg;
  for (int i = 0; i < kMaxPerDrain; ++i) {
    if (!socket_.recv(msg, zmq::recv_flags::dontwait)) break;
    ++counts_.received;
    // Verify each (to count what is bad); decode only the newest, below.
    switch (ClassifyMessage(msg.data(), msg.size())) {
      case DecodeStatus::kOk:
        ++counts_.snapshots;
        newest_.swap(msg);
        have_newest = true;
        break;
      case DecodeStatus::kInvalid:
        ++counts_.invalid;
        break;
      case DecodeStatus::kWrongVersion:
        ++counts_.wrong_version;
        break;
      case DecodeStatus::kNotSnapshot:
        ++counts_.not_snapshot;
        break;
    }
  }
  if (!have_newest) return std::nullopt;
  ClusterView view;
  DecodeMessage(newest_.data(), newest_.size(), &view);
  return view;
}

}  // namespace iashim::top
