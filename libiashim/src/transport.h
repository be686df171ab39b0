// The shim's connection to the coordinator: a ZeroMQ DEALER socket used only by
// the background thread, never blocking it.
//
// Messages wait in a bounded queue; when the coordinator is absent, slow or
// restarting, the oldest are dropped (and counted) so the newest telemetry
// wins and memory stays bounded. ZeroMQ reconnects by itself. Incoming
// messages pass the FlatBuffers verifier before anything reads them; invalid
// ones are counted and dropped.
#ifndef IASHIM_TRANSPORT_H_
#define IASHIM_TRANSPORT_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "libiashim/src/telemetry_encoder.h"

namespace zmq {
class context_t;
class socket_t;
}  // namespace zmq

namespace iashim {

namespace wire {
struct Budget;
struct Advice;
}  // namespace wire

class Transport {
 public:
  // `server_key`: the coordinator's CurveZMQ public key (Z85); empty: plain
  // text (the configuration allows that for a loopback endpoint only).
  Transport(std::string endpoint, size_t max_queued, std::string server_key = {});
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  // Called from Pump() for each verified Budget message.
  void OnBudget(std::function<void(const wire::Budget&)> handler) { on_budget_ = std::move(handler); }
  // Called from Pump() for each verified Advice message.
  void OnAdvice(std::function<void(const wire::Advice&)> handler) { on_advice_ = std::move(handler); }

  // False (with the reason logged once) if the socket could not be set up;
  // then every message is counted as dropped.
  bool Connect();
  void Enqueue(Message message);
  // Sends what the socket takes now and reads what has arrived. Never blocks.
  void Pump();
  // At exit: keeps pumping for up to `ms` milliseconds until the queue is
  // empty; what is still queued then counts as dropped. The socket closes
  // with a short linger so what ZeroMQ holds can still leave.
  void Drain(int ms);
  // How long the exit's Drain should wait, at `now_ns` (MonotonicNs): `ms`
  // once a message has left, or while the socket is younger than
  // kConnectGraceNs (it may still be connecting); 0 when it has tried that
  // long and nothing ever left (no coordinator there, or one that refused our
  // key): the wait would be added to every such process's exit, and what it
  // could still send is a Goodbye for a Hello the coordinator never heard.
  // 250 ms: two of ZeroMQ's reconnect attempts (reconnect_ivl_max), where a
  // handshake with a coordinator on the cluster's network takes milliseconds.
  int ExitDrainMs(int ms, uint64_t now_ns) const;
  static constexpr uint64_t kConnectGraceNs = 250'000'000;
  // In a fork() child: forgets the parent's ZeroMQ objects without touching
  // them (ZeroMQ is not fork-safe) so the child can connect afresh.
  void AbandonAfterFork();

  uint64_t dropped() const { return dropped_; }
  uint64_t sent() const { return sent_; }
  uint64_t received_invalid() const { return received_invalid_; }
  uint64_t received_ignored() const { return received_ignored_; }
  uint64_t received_budgets() const { return received_budgets_; }
  size_t queued() const { return queue_.size(); }

 private:
  void Receive();

  const std::string endpoint_;
  const size_t max_queued_;
  const std::string server_key_;
  std::unique_ptr<zmq::context_t> context_;
  std::unique_ptr<zmq::socket_t> socket_;
  std::deque<Message> queue_;
  std::function<void(const wire::Budget&)> on_budget_;
  std::function<void(const wire::Advice&)> on_advice_;
  std::vector<uint8_t> receive_buffer_;
  uint64_t dropped_ = 0;
  uint64_t sent_ = 0;
  uint64_t connected_ns_ = 0;  // MonotonicNs at Connect
  uint64_t received_invalid_ = 0;
  uint64_t received_ignored_ = 0;
  uint64_t received_budgets_ = 0;
};

}  // namespace iashim

#endif  // IASHIM_TRANSPORT_H_
