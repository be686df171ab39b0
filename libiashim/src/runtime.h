// The shim's process-wide state and its life cycle: lazy start on the first
// hooked call, pass-through when disabled or when the real driver is missing,
// restart in a fork() child, and the final flush at exit.
//
// Every hook starts with ActiveRuntime(): one acquire load and a predictable
// branch once the shim runs. Null means "just forward the call".
#ifndef IASHIM_RUNTIME_H_
#define IASHIM_RUNTIME_H_

#include <atomic>
#include <cstdint>
#include <memory>

#include "libiashim/src/collective_pacer.h"
#include "libiashim/src/config.h"
#include "libiashim/src/kernel_cost_model.h"
#include "libiashim/src/kernel_registry.h"
#include "libiashim/src/launch_gate.h"
#include "libiashim/src/memory_ledger.h"

namespace iashim {

class Drainer;

// How a program obtained our hooks (reported at exit and by gpu-check.sh).
enum class LookupPath { kDlsym = 0, kProcV1 = 1, kProcV2 = 2 };

struct ProcessCounters {
  std::atomic<uint64_t> lookups[3] = {};  // by LookupPath
  std::atomic<uint64_t> lookups_per_thread{0};
  std::atomic<int> launch_lookup_paths{0};  // bit per LookupPath that handed out a launch hook
  std::atomic<uint64_t> mem_refused{0};
};

// Counted from the first call, before the runtime exists.
extern ProcessCounters g_counters;

class Runtime {
 public:
  explicit Runtime(Config config);

  const Config& config() const { return config_; }
  KernelRegistry& kernels() { return kernels_; }
  // What each kernel costs, learned from samples; the gate charges it.
  KernelCostModel& costs() { return costs_; }
  LaunchGate& gate() { return gate_; }
  // How long a throttled rank holds each collective (collective_pacer.h).
  CollectivePacer& pacer() { return pacer_; }
  MemoryLedger& memory() { return *memory_; }

  // 1 in N launches is timed; 0 = none (no one would read the timings).
  uint32_t sample_every() const { return sample_every_.load(std::memory_order_relaxed); }
  void set_sample_every(uint32_t n) { sample_every_.store(n, std::memory_order_relaxed); }

  Drainer* drainer() { return drainer_; }

  // Before a context may be destroyed: finish or drop every sample and
  // in-flight marker (CUDA events) the shim holds (runtime.cc).
  void ForgetCudaObjects();
  // Drains every thread's records now (before a module goes: names first).
  void DrainNow();

  // Life cycle (runtime.cc).
  void StartDrainer();
  void Shutdown();
  void ForgetAfterFork();

 private:
  const Config config_;
  KernelRegistry kernels_;
  KernelCostModel costs_;
  LaunchGate gate_;
  CollectivePacer pacer_;
  // Replaced (the old one leaked) in a fork() child, which owns no memory yet.
  MemoryLedger* memory_;
  std::atomic<uint32_t> sample_every_;
  Drainer* drainer_ = nullptr;  // leaked in a fork() child, see ForgetAfterFork
};

// True when a trace wants every launch's own timestamp (set once at start).
extern bool g_exact_launch_times;

enum Phase : int { kUninitialized = 0, kInitializing, kActive, kPassThrough, kForkedChild };
extern std::atomic<int> g_phase;
extern Runtime* g_runtime;

Runtime* ActiveRuntimeSlow();

inline Runtime* ActiveRuntime() {
  const int phase = g_phase.load(std::memory_order_acquire);
  if (__builtin_expect(phase == kActive, 1)) return g_runtime;
  if (phase == kPassThrough) return nullptr;
  return ActiveRuntimeSlow();
}

// Counts one lookup that returned hook `hook`.
void RecordLookup(LookupPath path, int hook, bool per_thread);

// One summary line (IASHIM_LOG=info prints it at exit).
void LogSummary();

}  // namespace iashim

#endif  // IASHIM_RUNTIME_H_
