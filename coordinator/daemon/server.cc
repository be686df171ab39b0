#include "coordinator/daemon/server.h"

#include <time.h>

#include <cstdio>
#include <ctime>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/security/curve_socket.h"
#include "common/text/text.h"
#include "coordinator/daemon/bind_failure.h"
#include "coordinator/daemon/job_mover.h"
#include "coordinator/daemon/zap_handler.h"
#include "coordinator/metrics/http_server.h"
#include "coordinator/metrics/listen_address.h"
#include "coordinator/state/write_health.h"

namespace iashim::daemon {
namespace {

constexpr int kPollMs = 20;
constexpr int64_t kTickNs = 100'000'000;
// A move command (scontrol twice) that has not ended by then never will.
constexpr int64_t kMoveCommandTimeoutNs = 30 * kSecond;
// Messages handled before timers get a turn, so a flood cannot starve budgets.
constexpr int kBurst = 4096;

int64_t Clock(clockid_t id) {
  timespec ts;
  clock_gettime(id, &ts);
  return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// Receives one request from `router` without waiting: false when none is
// queued. `*ok` says whether it had the frames a request has (the sender's
// identity, then the body, after REQ's empty delimiter); a malformed one is
// drained whole and handed on empty, so the coordinator counts it.
bool ReceiveRequest(zmq::socket_t& router, zmq::message_t* identity, zmq::message_t* body,
                    bool* ok) {
  if (!router.recv(*identity, zmq::recv_flags::dontwait)) return false;
  *ok = identity->more() && router.recv(*body, zmq::recv_flags::none).has_value();
  // REQ clients put an empty delimiter frame first; take the last frame.
  while (*ok && body->more()) {
    if (body->size() == 0) {
      *ok = router.recv(*body, zmq::recv_flags::none).has_value();
      continue;
    }
    zmq::message_t extra;  // extra frames: drop them all
    do {
      (void)router.recv(extra, zmq::recv_flags::none);
    } while (extra.more());
    *ok = false;
  }
  return true;
}

// One daemon's sockets and loop, set up step by step by Serve.
class Server {
 public:
  Server(const DaemonOptions& options, Coordinator& coordinator, state::StateStore* store)
      : options_(options),
        coordinator_(coordinator),
        store_(store),
        router_(context_, zmq::socket_type::router),
        pub_(context_, zmq::socket_type::pub) {}

  // The ZAP handler (with keys), then the ROUTER and PUB sockets, keyed and bound.
  absl::Status Bind(const ServerKeys& keys) {
    // Started before the sockets it guards, so no handshake goes unchecked.
    if (keys.curve()) {
      absl::StatusOr<std::unique_ptr<ZapHandler>> started =
          ZapHandler::Start(context_, keys.admin_public_keys);
      if (!started.ok()) return started.status();
      zap_ = std::move(*started);
      std::string error;
      if (!security::ApplyServerKey(router_.handle(), keys.secret_key, &error) ||
          !security::ApplyServerKey(pub_.handle(), keys.secret_key, &error)) {
        return absl::FailedPreconditionError(error);
      }
    }
    try {
      router_.set(zmq::sockopt::linger, 0);
      router_.set(zmq::sockopt::maxmsgsize, int64_t(1) << 20);
      // A reply to a peer that has gone is dropped, not an error.
      router_.set(zmq::sockopt::router_mandatory, 0);
      // Per peer: a coordinator that falls behind holds at most this many
      // messages of each shim (~25 s of telemetry), so its memory stays bounded;
      // past that the shim queues a few itself and then drops its oldest batches
      // (counted, fail-open). 100,000 per peer let 1,000 shims grow it by GiBs.
      router_.set(zmq::sockopt::rcvhwm, 256);
      router_.bind(options_.listen);
    } catch (const zmq::error_t& e) {
      return absl::UnavailableError(BindFailure("--listen", options_.listen, e.num(), e.what()));
    }
    try {
      pub_.set(zmq::sockopt::linger, 0);
      pub_.set(zmq::sockopt::sndhwm, 16);
      pub_.bind(options_.pub);
    } catch (const zmq::error_t& e) {
      return absl::UnavailableError(BindFailure("--pub", options_.pub, e.num(), e.what()));
    }
    return absl::OkStatus();
  }

  // The /metrics endpoint, when asked for; it renders under the lock.
  absl::Status StartMetrics() {
    if (options_.metrics.empty()) return absl::OkStatus();
    absl::StatusOr<metrics::ListenAddress> address = metrics::ParseListenAddress(options_.metrics);
    if (!address.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--metrics: ", address.status().message()));
    }
    metrics::MetricsServerOptions m;
    m.address = *address;
    m.metrics = [this] {
      std::lock_guard<std::mutex> lock(mu_);
      return coordinator_.MetricsText(Clock(CLOCK_MONOTONIC));
    };
    http_ = std::make_unique<metrics::MetricsServer>(std::move(m));
    return http_->Start();
  }

  // Until `*stop`: requests first (handshakes before them), then the timers.
  void Run(const std::atomic<bool>* stop) {
    publish_every_ = Ns(options_.publish_period_s);
    while (!stop->load()) {
      zmq::pollitem_t items[] = {{router_.handle(), 0, ZMQ_POLLIN, 0},
                                 {zap_ ? zap_->socket().handle() : nullptr, 0, ZMQ_POLLIN, 0}};
      try {
        zmq::poll(items, zap_ ? 2 : 1, std::chrono::milliseconds(kPollMs));
      } catch (const zmq::error_t& e) {
        if (e.num() == EINTR) continue;
        throw;
      }
      // Handshakes wait on these answers; they are cheap and come first.
      if (zap_) zap_->HandlePending();
      std::lock_guard<std::mutex> lock(mu_);
      HandleRequests();
      RunTimers(Clock(CLOCK_MONOTONIC));
    }
  }

  // Stops /metrics and flushes the state store.
  absl::Status Finish() {
    if (http_) http_->Stop();
    if (store_ != nullptr) return store_->Sync();
    return absl::OkStatus();
  }

 private:
  // Up to kBurst queued requests, each answered at once.
  void HandleRequests() {
    for (int i = 0; i < kBurst; ++i) {
      bool ok = false;
      if (!ReceiveRequest(router_, &identity_, &body_, &ok)) break;
      // User-Id is set by our ZAP handler only; without CURVE nobody is admin.
      const Sender from{std::string_view(identity_.data<char>(), identity_.size()),
                        ok && zap_ != nullptr && FromAdmin(body_)};
      coordinator_.OnMessage(from,
                             ok ? std::span<const uint8_t>(body_.data<uint8_t>(), body_.size())
                                : std::span<const uint8_t>(),
                             Clock(CLOCK_MONOTONIC), Clock(CLOCK_REALTIME), &out_);
      Flush();
    }
  }

  // The coordinator's tick (and the state store's catch-up), and the snapshot.
  void RunTimers(int64_t now) {
    if (now >= next_tick_) {
      next_tick_ = now + kTickNs;
      coordinator_.OnTick(now, Clock(CLOCK_REALTIME), &out_);
      Flush();
      CarryOutMoves(now);
      if (store_ != nullptr) {
        (void)store_->CatchUp();  // what a full disk refused, once it has room
        if (std::optional<std::string> line = write_health_.Update(*store_)) {
          std::fprintf(stderr, "iashim-coordinator: %s\n", line->c_str());
        }
      }
    }
    if (now >= next_publish_) {
      next_publish_ = now + publish_every_;
      const std::string snapshot = coordinator_.EncodeSnapshot(now, Clock(CLOCK_REALTIME));
      pub_.send(zmq::buffer(snapshot), zmq::send_flags::dontwait);
    }
  }

  // Runs --move-command for the moves the coordinator decided, and logs how
  // earlier ones ended when they did not succeed.
  void CarryOutMoves(int64_t now) {
    std::vector<std::string> lines = mover_.Reap(now);
    for (const JobMove& move : coordinator_.TakeMoves()) {
      for (std::string& line : mover_.Start(move, now)) lines.push_back(std::move(line));
    }
    if (lines.empty()) return;
    const std::string when = FormatUtcTime(Clock(CLOCK_REALTIME));
    for (const std::string& line : lines) {
      std::fprintf(stderr, "iashim-coordinator: %s %s\n", when.c_str(), line.c_str());
    }
  }

  // Sends what the coordinator answered, and logs what it decided.
  void Flush() {
    for (Outgoing& o : out_) {
      if (o.identity.empty()) continue;
      router_.send(zmq::buffer(o.identity), zmq::send_flags::sndmore | zmq::send_flags::dontwait);
      router_.send(zmq::buffer(o.bytes), zmq::send_flags::dontwait);
    }
    out_.clear();
    const int64_t unix_ns = Clock(CLOCK_REALTIME);
    const std::vector<std::string> lines = coordinator_.TakeEvents(unix_ns);
    if (lines.empty()) return;
    const std::string when = FormatUtcTime(unix_ns);
    for (const std::string& line : lines) {
      std::fprintf(stderr, "iashim-coordinator: %s %s\n", when.c_str(), line.c_str());
    }
  }

  const DaemonOptions& options_;
  Coordinator& coordinator_;
  state::StateStore* store_;
  std::mutex mu_;  // the coordinator, between the loop and /metrics
  zmq::context_t context_{1};
  std::unique_ptr<ZapHandler> zap_;
  zmq::socket_t router_;
  zmq::socket_t pub_;
  std::unique_ptr<metrics::MetricsServer> http_;
  std::vector<Outgoing> out_;
  zmq::message_t identity_;
  zmq::message_t body_;
  int64_t next_tick_ = 0;
  int64_t next_publish_ = 0;
  int64_t publish_every_ = 0;
  state::WriteHealth write_health_;  // a full disk is logged once, not per write
  JobMover mover_{options_.move_command, kMoveCommandTimeoutNs};
};

}  // namespace

absl::Status Serve(const DaemonOptions& options, Coordinator& coordinator, state::StateStore* store,
                   const std::atomic<bool>* stop, const ServerKeys& keys,
                   const std::function<void()>& on_ready) {
  Server server(options, coordinator, store);
  if (absl::Status s = server.Bind(keys); !s.ok()) return s;
  if (absl::Status s = server.StartMetrics(); !s.ok()) return s;
  if (on_ready) on_ready();
  server.Run(stop);
  return server.Finish();
}

}  // namespace iashim::daemon
