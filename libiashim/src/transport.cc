#include "libiashim/src/transport.h"

#include <time.h>

#include <stdexcept>
#include <zmq.hpp>

#include "common/security/curve_socket.h"
#include "libiashim/src/cycle_clock.h"
#include "libiashim/src/inbound_message.h"
#include "libiashim/src/log.h"
#include "schemas/telemetry_generated.h"

namespace iashim {

Transport::Transport(std::string endpoint, size_t max_queued, std::string server_key)
    : endpoint_(std::move(endpoint)),
      max_queued_(max_queued == 0 ? 1 : max_queued),
      server_key_(std::move(server_key)) {}

Transport::~Transport() {
  try {
    socket_.reset();
    context_.reset();
  } catch (...) {
  }
}

bool Transport::Connect() {
  try {
    context_ = std::make_unique<zmq::context_t>(1);
    socket_ = std::make_unique<zmq::socket_t>(*context_, zmq::socket_type::dealer);
    // Queue nothing for a peer that is not connected: we keep our own queue.
    socket_->set(zmq::sockopt::immediate, 1);
    socket_->set(zmq::sockopt::sndhwm, 16);
    socket_->set(zmq::sockopt::rcvhwm, 64);
    socket_->set(zmq::sockopt::linger, 0);
    socket_->set(zmq::sockopt::reconnect_ivl, 100);
    // Retry every 100-250 ms, no further back-off: a restarted coordinator
    // hears from every shim within a second.
    socket_->set(zmq::sockopt::reconnect_ivl_max, 250);
    socket_->set(zmq::sockopt::maxmsgsize, int64_t(1) << 20);
    // A throwaway key pair of our own: the coordinator authenticates jobs by
    // their token, and the pair only has to encrypt this connection.
    std::string error;
    if (!security::ApplyClientKeys(socket_->handle(), security::ClientKeys{server_key_, "", ""},
                                   &error)) {
      throw std::runtime_error("CurveZMQ: " + error);
    }
    socket_->connect(endpoint_);
    connected_ns_ = MonotonicNs();
    return true;
  } catch (const std::exception& e) {
    IASHIM_WARN("cannot connect to IASHIM_COORDINATOR %s: %s; telemetry is not sent",
                endpoint_.c_str(), e.what());
    socket_.reset();
    context_.reset();
    return false;
  }
}

void Transport::Enqueue(Message message) {
  if (queue_.size() >= max_queued_) {
    queue_.pop_front();
    ++dropped_;
  }
  queue_.push_back(std::move(message));
  if (socket_ == nullptr) {
    dropped_ += queue_.size();
    queue_.clear();
  }
}

void Transport::Pump() {
  if (socket_ == nullptr) return;
  try {
    while (!queue_.empty()) {
      const Message& m = queue_.front();
      if (!socket_->send(zmq::const_buffer(m.data(), m.size()), zmq::send_flags::dontwait)) break;
      queue_.pop_front();
      ++sent_;
    }
    Receive();
  } catch (const std::exception& e) {
    IASHIM_DEBUG("coordinator socket: %s", e.what());
  }
}

void Transport::Receive() {
  zmq::message_t msg;
  for (int i = 0; i < 256; ++i) {
    if (!socket_->recv(msg, zmq::recv_flags::dontwait)) return;
    // FlatBuffers reads aligned words; ZeroMQ keeps small messages inside the
    // message object at any alignment. Copy into our own (aligned) buffer.
    const uint8_t* data = static_cast<const uint8_t*>(msg.data());
    receive_buffer_.assign(data, data + msg.size());
    switch (DispatchInbound(receive_buffer_.data(), receive_buffer_.size(), on_budget_,
                            on_advice_)) {
      case InboundKind::kInvalid: ++received_invalid_; break;
      case InboundKind::kIgnored: ++received_ignored_; break;
      case InboundKind::kBudget: ++received_budgets_; break;
      case InboundKind::kAdvice: break;
    }
  }
}

void Transport::Drain(int ms) {
  const timespec pause{0, 5'000'000};
  for (int waited = 0; !queue_.empty() && socket_ != nullptr && waited < ms; waited += 5) {
    Pump();
    if (!queue_.empty()) nanosleep(&pause, nullptr);
  }
  dropped_ += queue_.size();
  queue_.clear();
  try {
    if (socket_ != nullptr) socket_->set(zmq::sockopt::linger, 500);
    socket_.reset();
    context_.reset();  // waits up to the linger for queued messages to leave
  } catch (const std::exception& e) {
    IASHIM_DEBUG("closing the coordinator socket: %s", e.what());
  }
}

int Transport::ExitDrainMs(int ms, uint64_t now_ns) const {
  if (socket_ == nullptr) return 0;
  if (sent_ > 0 || now_ns < connected_ns_ + kConnectGraceNs) return ms;
  return 0;
}

void Transport::AbandonAfterFork() {
  (void)socket_.release();
  (void)context_.release();
  queue_.clear();
}

}  // namespace iashim
