#include "bench/load/shim_worker.h"

#include <time.h>

#include <algorithm>
#include <chrono>

#include "bench/load/cluster_layout.h"

namespace iashim::load {
namespace {

constexpr uint64_t kSecondNs = 1'000'000'000;
// Guaranteed shims start first and run alone this long, so the coordinator
// learns their solo baselines before the opportunistic ones join.
constexpr uint64_t kSoloNs = 5 * kSecondNs;
// Starts are spread over this long, as jobs of a real cluster do not start
// in the same microsecond.
constexpr uint64_t kSpreadNs = kSecondNs;
// A churned shim lived at least this long (so a 1 s snapshot saw it), and
// its slot's next process starts this long after it left.
constexpr uint64_t kMinLifeNs = 5 * kSecondNs;
constexpr uint64_t kRejoinNs = kSecondNs;
constexpr uint64_t kMaxPollNs = 10'000'000;
// No process joins this close to the end: the final snapshot must be able to
// show it (a churned slot stays empty instead).
constexpr uint64_t kNoJoinBeforeEndNs = 2 * kSecondNs;

uint64_t Clock(clockid_t id) {
  timespec ts;
  clock_gettime(id, &ts);
  return uint64_t(ts.tv_sec) * kSecondNs + uint64_t(ts.tv_nsec);
}

}  // namespace

void ConnectedPids::Publish(absl::flat_hash_set<int> pids) {
  auto shared = std::make_shared<const absl::flat_hash_set<int>>(std::move(pids));
  std::lock_guard<std::mutex> lock(mu_);
  pids_ = std::move(shared);
  ++generation_;
}

std::shared_ptr<const absl::flat_hash_set<int>> ConnectedPids::IfNewer(uint64_t* generation) {
  std::lock_guard<std::mutex> lock(mu_);
  if (generation_ == *generation) return nullptr;
  *generation = generation_;
  return pids_;
}

ShimWorker::ShimWorker(zmq::context_t& context, const LoadOptions& options, LoadStats* stats,
                       ConnectedPids* connected, std::atomic<int>* next_pid, int worker_index)
    : context_(context),
      options_(options),
      stats_(stats),
      connected_(connected),
      next_pid_(next_pid),
      rng_(0x2545f4914f6cdd1dULL * uint64_t(worker_index + 1)) {
  const int gpus = GpuCount(options.shims, options.shims_per_gpu);
  for (int g = worker_index; g < gpus; g += options.threads) {
    SimGpu gpu;
    for (int s = 0; s < options.shims_per_gpu; ++s) {
      const int index = g * options.shims_per_gpu + s;
      if (index >= options.shims) break;
      ShimSlot slot;
      slot.spec.host = HostOf(g);
      slot.spec.pid = 10000 + index;  // unique across hosts: snapshots are matched by pid
      slot.spec.opportunistic = s > 0;
      slot.spec.model = index;
      slot.spec.window_ms = uint32_t(options.window_ms);
      slot.join_at_ns = (s > 0 ? kSoloNs : 0) + uint64_t(g) * kSpreadNs / uint64_t(gpus);
      gpu.slots.push_back(std::move(slot));
    }
    gpus_.push_back(std::move(gpu));
  }
}

ShimWorker::~ShimWorker() { Stop(); }

void ShimWorker::Start(uint64_t start_ns) {
  for (SimGpu& gpu : gpus_) {
    for (ShimSlot& slot : gpu.slots) slot.join_at_ns += start_ns;
  }
  thread_ = std::thread([this, start_ns] { Run(start_ns); });
}

void ShimWorker::Stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

void ShimWorker::EndShim(ShimSlot& slot) {
  if (!slot.shim->registered) ended_unregistered_.fetch_add(1);
  slot.shim->Leave();
  slot.shim.reset();
  stats_->leaves.fetch_add(1, std::memory_order_relaxed);
}

void ShimWorker::Churn(uint64_t now_ns) {
  // Pick a random live shim old enough; a few tries, then give up this turn.
  for (int attempt = 0; attempt < 8; ++attempt) {
    rng_ ^= rng_ << 13;
    rng_ ^= rng_ >> 7;
    rng_ ^= rng_ << 17;
    SimGpu& gpu = gpus_[rng_ % gpus_.size()];
    ShimSlot& slot = gpu.slots[(rng_ >> 32) % gpu.slots.size()];
    if (!slot.shim || now_ns - slot.shim->started_ns() < kMinLifeNs) continue;
    EndShim(slot);
    slot.spec.pid = next_pid_->fetch_add(1);
    slot.join_at_ns = now_ns + kRejoinNs;
    slot.rejoin = true;
    return;
  }
}

void ShimWorker::Run(uint64_t start_ns) {
  std::vector<zmq::pollitem_t> items;
  std::vector<SimShim*> polled;
  bool membership_changed = true;
  uint64_t generation = 0;
  const double churn_per_s = options_.churn_per_s / options_.threads;
  uint64_t next_churn_ns = churn_per_s > 0 ? start_ns + kSoloNs + kMinLifeNs : UINT64_MAX;
  const uint64_t last_join_ns = start_ns + uint64_t(options_.seconds * 1e9) - kNoJoinBeforeEndNs;
  while (!stop_.load(std::memory_order_relaxed)) {
    uint64_t now = Clock(CLOCK_MONOTONIC);
    const uint64_t unix_now = Clock(CLOCK_REALTIME);
    if (auto pids = connected_->IfNewer(&generation)) {
      for (SimGpu& gpu : gpus_) {
        for (ShimSlot& slot : gpu.slots) {
          if (slot.shim && pids->contains(slot.spec.pid)) slot.shim->registered = true;
        }
      }
    }
    if (now >= next_churn_ns && !gpus_.empty()) {
      Churn(now);
      membership_changed = true;
      next_churn_ns += uint64_t(1e9 / churn_per_s);
    }
    uint64_t next_due = now + kMaxPollNs;
    for (SimGpu& gpu : gpus_) {
      double opportunistic_share = 0;
      for (ShimSlot& slot : gpu.slots) {
        const bool may_join = now >= slot.join_at_ns && (!slot.rejoin || now < last_join_ns);
        if (!slot.shim && may_join) {
          slot.shim = std::make_unique<SimShim>(context_, options_.endpoint, slot.spec, now, unix_now,
                                                stats_);
          membership_changed = true;
        }
        if (slot.shim && slot.spec.opportunistic) opportunistic_share += slot.shim->ShareAt(now);
        if (!slot.shim) next_due = std::min(next_due, slot.join_at_ns);
      }
      for (ShimSlot& slot : gpu.slots) {
        if (!slot.shim) continue;
        slot.shim->Tick(now, opportunistic_share);
        next_due = std::min(next_due, slot.shim->NextDueNs());
      }
    }
    if (membership_changed) {
      items.clear();
      polled.clear();
      for (SimGpu& gpu : gpus_) {
        for (ShimSlot& slot : gpu.slots) {
          if (!slot.shim) continue;
          items.push_back({slot.shim->socket_handle(), 0, ZMQ_POLLIN, 0});
          polled.push_back(slot.shim.get());
        }
      }
      membership_changed = false;
    }
    now = Clock(CLOCK_MONOTONIC);
    const int64_t wait_ms = next_due > now ? int64_t((next_due - now + 999'999) / 1'000'000) : 0;
    if (items.empty()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(std::min<int64_t>(wait_ms, 10)));
      continue;
    }
    try {
      zmq::poll(items.data(), items.size(), std::chrono::milliseconds(wait_ms));
    } catch (const zmq::error_t& e) {
      if (e.num() == EINTR) continue;
      throw;
    }
    now = Clock(CLOCK_MONOTONIC);
    for (size_t i = 0; i < items.size(); ++i) {
      if (items[i].revents & ZMQ_POLLIN) polled[i]->Receive(now);
    }
  }
}

void ShimWorker::Flush() {
  for (SimGpu& gpu : gpus_) {
    for (ShimSlot& slot : gpu.slots) {
      if (slot.shim) slot.shim->Flush();
    }
  }
}

void ShimWorker::MarkConnected(const absl::flat_hash_set<int>& pids, bool final_snapshot) {
  for (SimGpu& gpu : gpus_) {
    for (ShimSlot& slot : gpu.slots) {
      if (!slot.shim) continue;
      const bool connected = pids.contains(slot.spec.pid);
      if (connected) slot.shim->registered = true;
      if (final_snapshot) slot.shim->connected_in_last_snapshot = connected;
    }
  }
}

EndFigures ShimWorker::Figures(uint64_t now_ns) const {
  EndFigures f;
  for (const SimGpu& gpu : gpus_) {
    const bool guaranteed_live = !gpu.slots.empty() && gpu.slots[0].shim != nullptr;
    for (const ShimSlot& slot : gpu.slots) {
      if (!slot.shim) continue;
      ++f.live;
      f.live_registered += slot.shim->registered;
      f.live_connected += slot.shim->connected_in_last_snapshot;
      f.refused += slot.shim->refused();
      if (slot.spec.opportunistic && guaranteed_live &&
          now_ns - slot.shim->started_ns() >= uint64_t(kBudgetGraceS * 1e9)) {
        ++f.budget_eligible;
        f.budget_never += slot.shim->budgets() == 0;
      }
    }
  }
  return f;
}

void ShimWorker::LeaveAll() {
  for (SimGpu& gpu : gpus_) {
    for (ShimSlot& slot : gpu.slots) {
      if (slot.shim) slot.shim->Leave();
      slot.shim.reset();
    }
  }
}

}  // namespace iashim::load
