// The shim's background thread. Every few milliseconds it drains the
// per-thread launch buffers, names new kernels, collects finished GPU-time
// samples, writes the trace, and at the end of each window sends one
// TelemetryBatch. All I/O of the shim happens here, off the application's
// threads.
#ifndef IASHIM_DRAINER_H_
#define IASHIM_DRAINER_H_

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "libiashim/src/cuda_api.h"
#include "libiashim/src/cycle_clock.h"
#include "libiashim/src/own_cpu_use.h"
#include "libiashim/src/run_queue_wait.h"
#include "libiashim/src/telemetry_encoder.h"
#include "libiashim/src/trace_writer.h"
#include "libiashim/src/transport.h"
#include "libiashim/src/window_aggregator.h"

namespace iashim {

namespace wire {
struct Budget;
struct Advice;
}  // namespace wire

class Runtime;
class NvmlLoop;
class ThreadBuffer;

struct DrainerTotals {
  uint64_t launches = 0;
  uint64_t graph_launches = 0;
  uint64_t syncs = 0;
  uint64_t records_dropped = 0;
  uint64_t samples = 0;
  uint64_t telemetry_sent = 0;
  uint64_t telemetry_dropped = 0;
  uint64_t trace_records = 0;
};

class Drainer {
 public:
  static constexpr int kPassMs = 10;

  explicit Drainer(Runtime* runtime);
  ~Drainer();

  // Opens the trace and the coordinator connection, starts the thread.
  void Start();
  // Stops the thread and flushes everything (exit).
  void Stop();
  // In a fork() child the thread does not exist: drop it without joining.
  void AbandonAfterFork();

  // Totals so far; with `drain_first`, after draining every buffer now.
  DrainerTotals totals(bool drain_first = false);
  // Collects what samples it can now, drops the rest, and destroys every
  // idle event pair while their context still exists: it may be about to go.
  void ForgetCudaObjects();

 private:
  struct PendingSample {
    ThreadBuffer* buffer;
    int slot;
    RecordKind kind;
    uint8_t device;
    uint32_t kernel;
    uint32_t thread;
    uint64_t seq;
    uint64_t queued_ns;
  };

  void Run();
  void Pass(bool final_pass);
  void Name(uint32_t kernel);
  void PollSamples(uint64_t now_ns, bool final_pass);
  void CloseWindow(uint64_t now_ns);
  void SendHello(uint64_t now_ns);
  void SendNames(bool all);
  void ApplyBudget(const wire::Budget& message);
  void ApplyAdvice(const wire::Advice& advice);

  Runtime* const runtime_;
  std::thread thread_;
  std::mutex mu_;  // guards stop_ and serialises Pass with totals()
  std::condition_variable wake_;
  bool stop_ = false;
  bool running_ = false;

  std::unique_ptr<TickConverter> clock_;
  std::unique_ptr<WindowAggregator> window_;
  TraceWriter trace_;
  std::unique_ptr<Transport> transport_;
  std::unique_ptr<NvmlLoop> nvml_;  // null with IASHIM_SHARE_FEEDBACK=off and no coordinator
  std::vector<PendingSample> pending_;
  std::vector<uint8_t> named_;      // kernel id -> name resolved (or tried)
  std::vector<uint8_t> traced_;     // kernel id -> name written to the trace
  std::vector<uint8_t> name_sent_;  // kernel id -> name sent to the coordinator
  CUcontext current_ctx_ = nullptr;
  uint64_t window_end_ns_ = 0;
  uint64_t seq_ = 0;
  uint64_t last_hello_ns_ = 0;
  uint64_t last_names_ns_ = 0;
  uint64_t syncs_ = 0;
  uint64_t samples_done_ = 0;
  uint64_t cost_seen_ns_ = 0;
  uint64_t samples_seen_ = 0;
  uint64_t refused_seen_[64] = {};
  uint64_t held_seen_ = 0;
  uint64_t held_ns_seen_ = 0;
  uint64_t budgets_rejected_ = 0;
  RunQueueWait run_queue_wait_;
  OwnCpuUse own_cpu_use_;  // whose that wait was
  HelloInfo hello_;
};

}  // namespace iashim

#endif  // IASHIM_DRAINER_H_
