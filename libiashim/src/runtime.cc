#include "libiashim/src/runtime.h"

#include <pthread.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "libiashim/src/cycle_clock.h"
#include "libiashim/src/drainer.h"
#include "libiashim/src/hook_table.h"
#include "libiashim/src/log.h"
#include "libiashim/src/real_driver.h"
#include "libiashim/src/start_line.h"
#include "libiashim/src/thread_buffer.h"

namespace iashim {

std::atomic<int> g_phase{kUninitialized};
bool g_exact_launch_times = false;
Runtime* g_runtime = nullptr;
ProcessCounters g_counters;

namespace {

std::mutex g_init_mu;
// Set while this thread initialises: a hook reached from inside initialisation
// (the driver's constructor calling an entry point) just forwards.
thread_local bool tls_initializing __attribute__((tls_model("initial-exec"))) = false;

void ChildAfterFork();

void AtExit() {
  // Exit may begin on any thread, while others still launch: they keep
  // forwarding; only telemetry after this point is lost.
  if (g_phase.load(std::memory_order_acquire) != kActive || g_runtime == nullptr) return;
  g_runtime->Shutdown();
}

void Initialize() {
  std::vector<std::string> errors;
  Config config = ParseConfig([](const char* name) { return std::getenv(name); }, &errors);
  SetLogLevel(config.log_level);
  for (const std::string& e : errors) IASHIM_WARN("%s", e.c_str());

  std::string error;
  if (!OpenRealDriver(config.real_libcuda, &error)) {
    IASHIM_WARN("%s; every call passes through unobserved", error.c_str());
    g_phase.store(kPassThrough, std::memory_order_release);
    return;
  }
  if (config.disabled) {
    IASHIM_INFO("IASHIM_DISABLE is set: pass-through");
    g_phase.store(kPassThrough, std::memory_order_release);
    return;
  }
  InitCycleClock();
  g_exact_launch_times = !config.trace_path.empty();
  g_runtime = new Runtime(std::move(config));
  g_runtime->StartDrainer();
  pthread_atfork(nullptr, nullptr, &ChildAfterFork);
  std::atexit(&AtExit);
  IASHIM_INFO("%s", StartLine(g_runtime->config(), getpid()).c_str());
  g_phase.store(kActive, std::memory_order_release);
}

void ChildAfterFork() {
  // Only this thread exists in the child. The telemetry thread and the
  // ZeroMQ context are gone; the first hooked call restarts them, so children
  // that never touch CUDA (data-loader workers) cost nothing.
  if (g_phase.load(std::memory_order_relaxed) != kActive || g_runtime == nullptr) return;
  g_runtime->ForgetAfterFork();
  ThreadBuffer::ResetAfterFork();
  g_phase.store(kForkedChild, std::memory_order_release);
}

}  // namespace

Runtime::Runtime(Config config)
    : config_(std::move(config)),
      gate_(BudgetFromConfig(config_), MonotonicNs()),
      memory_(new MemoryLedger(config_.mem_limit_bytes)),
      sample_every_(config_.sample_every) {}

void Runtime::StartDrainer() {
  drainer_ = new Drainer(this);
  drainer_->Start();
}

void Runtime::ForgetCudaObjects() {
  if (drainer_ != nullptr) drainer_->ForgetCudaObjects();
  gate_.ForgetCudaObjects();
}

void Runtime::DrainNow() {
  if (drainer_ != nullptr) drainer_->totals(/*drain_first=*/true);
}

void Runtime::Shutdown() {
  if (drainer_ != nullptr) drainer_->Stop();
  if (LogEnabled(LogLevel::kInfo)) LogSummary();
}

void Runtime::ForgetAfterFork() {
  if (drainer_ != nullptr) drainer_->AbandonAfterFork();
  drainer_ = nullptr;  // leaked: see Drainer::AbandonAfterFork
  memory_ = new MemoryLedger(config_.mem_limit_bytes);
}

Runtime* ActiveRuntimeSlow() {
  if (tls_initializing) return nullptr;
  const int phase = g_phase.load(std::memory_order_acquire);
  if (phase == kPassThrough) return nullptr;
  if (phase == kActive) return g_runtime;
  try {
    std::lock_guard<std::mutex> lock(g_init_mu);
    tls_initializing = true;
    if (g_phase.load(std::memory_order_acquire) == kUninitialized) {
      g_phase.store(kInitializing, std::memory_order_relaxed);
      Initialize();
    } else if (g_phase.load(std::memory_order_acquire) == kForkedChild) {
      g_runtime->StartDrainer();
      g_phase.store(kActive, std::memory_order_release);
    }
    tls_initializing = false;
  } catch (...) {
    tls_initializing = false;
    g_phase.store(kPassThrough, std::memory_order_release);
    IASHIM_WARN("initialisation failed; every call passes through unobserved");
    return nullptr;
  }
  return g_phase.load(std::memory_order_acquire) == kActive ? g_runtime : nullptr;
}

void RecordLookup(LookupPath path, int hook, bool per_thread) {
  g_counters.lookups[int(path)].fetch_add(1, std::memory_order_relaxed);
  if (per_thread) g_counters.lookups_per_thread.fetch_add(1, std::memory_order_relaxed);
  if (IsLaunchHook(hook)) {
    g_counters.launch_lookup_paths.fetch_or(1 << int(path), std::memory_order_relaxed);
  }
}

void LogSummary() {
  DrainerTotals t;
  if (g_runtime != nullptr && g_runtime->drainer() != nullptr) t = g_runtime->drainer()->totals();
  const int paths = g_counters.launch_lookup_paths.load();
  const char* how = paths == 0   ? "symbol"
                    : paths == 1 ? "dlsym"
                    : paths == 2 ? "proc_v1"
                    : paths == 4 ? "proc_v2"
                                 : "several";
  Log(LogLevel::kWarn,
      "summary pid=%d launches=%llu graph_launches=%llu launch_lookup=%s lookups_dlsym=%llu "
      "lookups_proc_v1=%llu lookups_proc_v2=%llu lookups_per_thread=%llu mem_refused=%llu "
      "telemetry_dropped=%llu trace_records=%llu trace_dropped=%llu collectives_paced=%llu "
      "collectives_paced_ms=%.1f",
      getpid(), (unsigned long long)t.launches, (unsigned long long)t.graph_launches, how,
      (unsigned long long)g_counters.lookups[0].load(),
      (unsigned long long)g_counters.lookups[1].load(),
      (unsigned long long)g_counters.lookups[2].load(),
      (unsigned long long)g_counters.lookups_per_thread.load(),
      (unsigned long long)g_counters.mem_refused.load(), (unsigned long long)t.telemetry_dropped,
      (unsigned long long)t.trace_records, (unsigned long long)t.records_dropped,
      (unsigned long long)(g_runtime != nullptr ? g_runtime->pacer().held() : 0),
      g_runtime != nullptr ? double(g_runtime->pacer().held_ns()) / 1e6 : 0.0);
}

}  // namespace iashim
