#include "coordinator/daemon/server.h"

#include <time.h>

#include <cstdio>
#include <memory>
#include <mutex>
#include <zmq.hpp>

#include "absl/strings/str_cat.h"
#include "common/security/curve_socket.h"
#include "coordinator/daemon/bind_failure.h"
#include "coordinator/daemon/zap_handler.h"
#include "coordinator/metrics/http_server.h"
#include "coordinator/metrics/listen_address.h"
#include "coordinator/state/write_health.h"

namespace iashim::daemon {
namespace {

constexpr int kPollMs = 20;
constexpr int64_t kTickNs = 100'000'000;
// Messages handled before timers get a turn, so a flood cannot starve budgets.
constexpr int kBurst = 4096;

int64_t Clock(clockid_t id) {
  timespec ts;
  clock_gettime(id, &ts);
  return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

absl::Status Serve(const DaemonOptions& options, Coordinator& coordinator,
                   state::StateStore* store, const std::atomic<bool>* stop,
                   const ServerKeys& keys, const std::function<void()>& on_ready) {
  std::mutex mu;  // the coordinator, between this thread and /metrics
  zmq::context_t context(1);
  // Bound before the sockets it guards, so no handshake goes unchecked.
  std::unique_ptr<ZapHandler> zap;
  if (keys.curve()) {
    absl::StatusOr<std::unique_ptr<ZapHandler>> started =
        ZapHandler::Start(context, keys.admin_public_keys);
    if (!started.ok()) return started.status();
    zap = std::move(*started);
  }
  zmq::socket_t router(context, zmq::socket_type::router);
  zmq::socket_t pub(context, zmq::socket_type::pub);
  if (keys.curve()) {
    std::string error;
    if (!security::ApplyServerKey(router.handle(), keys.secret_key, &error) ||
        !security::ApplyServerKey(pub.handle(), keys.secret_key, &error)) {
      return absl::FailedPreconditionError(error);
    }
  }
  try {
    router.set(zmq::sockopt::linger, 0);
    router.set(zmq::sockopt::maxmsgsize, int64_t(1) << 20);
    // A reply to a peer that has gone is dropped, not an error.
    router.set(zmq::sockopt::router_mandatory, 0);
    // Per peer: a coordinator that falls behind holds at most this many
    // messages of each shim (~25 s of telemetry), so its memory stays bounded;
    // past that the shim queues a few itself and then drops its oldest batches
    // (counted, fail-open). 100,000 per peer let 1,000 shims grow it by GiBs.
    router.set(zmq::sockopt::rcvhwm, 256);
    router.bind(options.listen);
  } catch (const zmq::error_t& e) {
    return absl::UnavailableError(BindFailure("--listen", options.listen, e.num(), e.what()));
  }
  try {
    pub.set(zmq::sockopt::linger, 0);
    pub.set(zmq::sockopt::sndhwm, 16);
    pub.bind(options.pub);
  } catch (const zmq::error_t& e) {
    return absl::UnavailableError(BindFailure("--pub", options.pub, e.num(), e.what()));
  }
  std::unique_ptr<metrics::MetricsServer> http;
  if (!options.metrics.empty()) {
    absl::StatusOr<metrics::ListenAddress> address = metrics::ParseListenAddress(options.metrics);
    if (!address.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--metrics: ", address.status().message()));
    }
    metrics::MetricsServerOptions m;
    m.address = *address;
    m.metrics = [&] {
      std::lock_guard<std::mutex> lock(mu);
      return coordinator.MetricsText(Clock(CLOCK_MONOTONIC));
    };
    http = std::make_unique<metrics::MetricsServer>(std::move(m));
    if (absl::Status s = http->Start(); !s.ok()) return s;
  }
  if (on_ready) on_ready();

  std::vector<Outgoing> out;
  auto flush = [&] {
    for (Outgoing& o : out) {
      if (o.identity.empty()) continue;
      router.send(zmq::buffer(o.identity), zmq::send_flags::sndmore | zmq::send_flags::dontwait);
      router.send(zmq::buffer(o.bytes), zmq::send_flags::dontwait);
    }
    out.clear();
  };
  int64_t next_tick = 0;
  state::WriteHealth write_health;  // a full disk is logged once, not per write
  int64_t next_publish = 0;
  const int64_t publish_every = int64_t(options.publish_period_s * 1e9);
  zmq::message_t identity;
  zmq::message_t body;
  zmq::message_t extra;
  while (!stop->load()) {
    zmq::pollitem_t items[] = {{router.handle(), 0, ZMQ_POLLIN, 0},
                               {zap ? zap->socket().handle() : nullptr, 0, ZMQ_POLLIN, 0}};
    try {
      zmq::poll(items, zap ? 2 : 1, std::chrono::milliseconds(kPollMs));
    } catch (const zmq::error_t& e) {
      if (e.num() == EINTR) continue;
      throw;
    }
    // Handshakes wait on these answers; they are cheap and come first.
    if (zap) zap->HandlePending();
    {
      std::lock_guard<std::mutex> lock(mu);
      for (int i = 0; i < kBurst; ++i) {
        if (!router.recv(identity, zmq::recv_flags::dontwait)) break;
        bool ok = identity.more() && router.recv(body, zmq::recv_flags::none).has_value();
        // REQ clients put an empty delimiter frame first; take the last frame.
        while (ok && body.more()) {
          if (body.size() == 0) {
            ok = router.recv(body, zmq::recv_flags::none).has_value();
          } else {
            (void)router.recv(extra, zmq::recv_flags::none);  // extra frames: drop them all
            ok = false;
            while (extra.more()) (void)router.recv(extra, zmq::recv_flags::none);
          }
        }
        const int64_t now = Clock(CLOCK_MONOTONIC);
        // User-Id is set by our ZAP handler only; without CURVE nobody is admin.
        const Sender from{std::string_view(identity.data<char>(), identity.size()),
                          ok && zap != nullptr && FromAdmin(body)};
        coordinator.OnMessage(from,
                              ok ? std::span<const uint8_t>(body.data<uint8_t>(), body.size())
                                 : std::span<const uint8_t>(),
                              now, Clock(CLOCK_REALTIME), &out);
        flush();
      }
      const int64_t now = Clock(CLOCK_MONOTONIC);
      if (now >= next_tick) {
        next_tick = now + kTickNs;
        coordinator.OnTick(now, Clock(CLOCK_REALTIME), &out);
        flush();
        if (store != nullptr) {
          (void)store->CatchUp();  // what a full disk refused, once it has room
          if (std::optional<std::string> line = write_health.Update(*store)) {
            std::fprintf(stderr, "iashim-coordinator: %s\n", line->c_str());
          }
        }
      }
      if (now >= next_publish) {
        next_publish = now + publish_every;
        const std::string snapshot = coordinator.EncodeSnapshot(now, Clock(CLOCK_REALTIME));
        pub.send(zmq::buffer(snapshot), zmq::send_flags::dontwait);
      }
    }
  }
  if (http) http->Stop();
  if (store != nullptr) return store->Sync();
  return absl::OkStatus();
}

}  // namespace iashim::daemon
