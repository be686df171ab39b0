#include "bench/load/sim_shim.h"

#include <time.h>

#include <algorithm>

#include "common/text/names.h"
#include "common/text/text.h"
#include "common/wire/envelope.h"
#include "common/wire/kernel_id.h"
#include "schemas/telemetry_generated.h"

namespace iashim::load {
namespace {

constexpr uint64_t kHelloEveryNs = 10'000'000'000ULL;  // as the shim's drainer
constexpr uint64_t kNamesEveryNs = 30'000'000'000ULL;
constexpr uint32_t kSampleEvery = 8;
constexpr size_t kMaxQueued = 64;  // IASHIM_QUEUE_BATCHES' default
// An opportunistic job is slowed this much by sharing even when unthrottled.
constexpr double kOpportunisticSlowdown = 0.3;

uint64_t UnixNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000 + uint64_t(ts.tv_nsec);
}

}  // namespace

SimShim::SimShim(zmq::context_t& context, const std::string& endpoint, const ShimSpec& spec,
                 uint64_t now_ns, uint64_t unix_ns, LoadStats* stats)
    : spec_(spec),
      stats_(stats),
      socket_(context, zmq::socket_type::dealer),
      loop_(ModelFor(spec.model), uint64_t(spec.pid) * 0x9e3779b97f4a7c15ULL),
      started_ns_(now_ns),
      window_start_ns_(now_ns),
      next_window_ns_(now_ns + uint64_t(spec.window_ms) * 1'000'000),
      next_hello_ns_(now_ns + kHelloEveryNs),
      next_names_ns_(now_ns + kNamesEveryNs) {
  socket_.set(zmq::sockopt::immediate, 1);
  socket_.set(zmq::sockopt::sndhwm, 16);
  socket_.set(zmq::sockopt::rcvhwm, 64);
  socket_.set(zmq::sockopt::linger, 0);
  socket_.set(zmq::sockopt::reconnect_ivl, 100);
  socket_.set(zmq::sockopt::reconnect_ivl_max, 250);
  socket_.connect(endpoint);
  const SimModel& model = ModelFor(spec.model);
  hello_.pid = spec.pid;
  hello_.host = spec.host;
  hello_.command = "python train.py --model " + model.name;
  hello_.window_ms = spec.window_ms;
  hello_.start_unix_ns = unix_ns;
  hello_.start_monotonic_ns = now_ns;
  hello_.opportunistic = spec.opportunistic;
  SendHello(now_ns);
  Send(EncodeKernelNames(spec_.pid, KernelNamesOf(model)));
  stats_->joins.fetch_add(1, std::memory_order_relaxed);
}

void SimShim::Send(Message m) {
  if (queue_.size() >= kMaxQueued) {
    queue_.pop_front();
    ++dropped_;
    stats_->shim_dropped.fetch_add(1, std::memory_order_relaxed);
  }
  queue_.push_back(std::move(m));
  Pump();
}

void SimShim::Pump() {
  while (!queue_.empty()) {
    const Message& m = queue_.front();
    if (!socket_.send(zmq::const_buffer(m.data(), m.size()), zmq::send_flags::dontwait)) return;
    queue_.pop_front();
    stats_->sent.fetch_add(1, std::memory_order_relaxed);
  }
}

void SimShim::SendHello(uint64_t now_ns) {
  Send(EncodeHello(hello_));
  next_hello_ns_ = now_ns + kHelloEveryNs;
}

double SimShim::ShareAt(uint64_t now_ns) const {
  if (budget_expires_ns_ != 0 && now_ns >= budget_expires_ns_) return 1.0;
  return budget_share_;
}

void SimShim::Tick(uint64_t now_ns, double gpu_opportunistic_share) {
  if (refused_) return;  // unmanaged: no more talk to the coordinator
  Pump();
  if (now_ns >= next_window_ns_) {
    const double share = ShareAt(now_ns);
    const double slowdown = spec_.opportunistic
                                ? (1.0 + kOpportunisticSlowdown) / share - 1.0
                                : kInterference * gpu_opportunistic_share;
    const WindowSummary w = loop_.Advance(window_start_ns_, now_ns, slowdown, kSampleEvery);
    BatchExtras extras;
    extras.seq = seq_++;
    extras.sample_every = kSampleEvery;
    extras.batches_dropped = dropped_;
    const uint64_t mem = ModelFor(spec_.model).mem_bytes;
    extras.memory.push_back({0, mem, mem, 0, 0});
    extras.budget_share = share;
    if (share < 1.0) {
      // What the launch gate would have held back to keep to the share.
      extras.held_launches = uint64_t(double(w.launches) * (1.0 - share));
      extras.held_ns = uint64_t(double(now_ns - window_start_ns_) * (1.0 - share));
    }
    const std::vector<SimKernel>& kernels = ModelFor(spec_.model).kernels;
    Send(EncodeBatch(spec_.pid, w, extras,
                     [&](uint32_t id) { return KernelId(kernels[id].name); }));
    window_start_ns_ = now_ns;
    // The next window is due a window after this one was: a late poll does
    // not shift the schedule, as the shim's 10 ms drainer would not.
    next_window_ns_ = std::max(next_window_ns_ + uint64_t(spec_.window_ms) * 1'000'000,
                               now_ns + 1'000'000);
  }
  if (now_ns >= next_hello_ns_) SendHello(now_ns);
  if (now_ns >= next_names_ns_) {
    Send(EncodeKernelNames(spec_.pid, KernelNamesOf(ModelFor(spec_.model))));
    next_names_ns_ = now_ns + kNamesEveryNs;
  }
}

void SimShim::Receive(uint64_t now_ns) {
  zmq::message_t msg;
  for (int i = 0; i < 64; ++i) {
    if (!socket_.recv(msg, zmq::recv_flags::dontwait)) return;
    const uint64_t received_unix_ns = UnixNs();
    stats_->received.fetch_add(1, std::memory_order_relaxed);
    const wire::OpenedEnvelope in = wire::OpenEnvelope(msg.data(), msg.size(), &aligned_);
    if (in.error != wire::EnvelopeError::kNone) {
      stats_->received_invalid.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    const wire::Envelope* e = in.envelope;
    if (const wire::Budget* b = e->payload_as_Budget()) {
      stats_->budgets.fetch_add(1, std::memory_order_relaxed);
      ++budgets_;
      if (b->issued_unix_ns() != 0) {
        stats_->AddLatency(int64_t(received_unix_ns) - int64_t(b->issued_unix_ns()));
      }
      if (b->seq() <= budget_seq_ || !(b->share() > 0 && b->share() <= 1)) {
        stats_->budgets_stale.fetch_add(1, std::memory_order_relaxed);
        continue;
      }
      budget_seq_ = b->seq();
      budget_share_ = b->share();
      budget_expires_ns_ = b->ttl_ms() == 0 ? 0 : now_ns + uint64_t(b->ttl_ms()) * 1'000'000;
    } else if (const wire::Advice* a = e->payload_as_Advice()) {
      if (a->kind() == wire::AdviceKind::SendHello) {
        stats_->advice_send_hello.fetch_add(1, std::memory_order_relaxed);
        if (!refused_) SendHello(now_ns);
      } else if (a->kind() == wire::AdviceKind::Refused) {
        stats_->advice_refused.fetch_add(1, std::memory_order_relaxed);
        refused_ = true;
      } else if (a->kind() == wire::AdviceKind::Token) {
        // The token of the job our Hello created: later Hellos must carry it.
        const std::string_view token = a->text() ? a->text()->string_view() : std::string_view();
        if (ValidJobToken(token)) {
          hello_.token = std::string(token);
        } else {
          stats_->received_invalid.fetch_add(1, std::memory_order_relaxed);
        }
      }
    } else {
      stats_->received_invalid.fetch_add(1, std::memory_order_relaxed);
    }
  }
}

void SimShim::Leave() {
  if (!refused_) Send(EncodeGoodbye(spec_.pid, loop_.launches(), 0));
  // linger 0 would drop the Goodbye if it has not left yet: give it a moment.
  socket_.set(zmq::sockopt::linger, 200);
  socket_.close();
}

}  // namespace iashim::load
