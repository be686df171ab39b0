#include "libiashim/src/drainer.h"

#include "common/wire/kernel_id.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <ctime>

#include "common/text/names.h"
#include "common/text/text.h"
#include "libiashim/src/budget.h"
#include "libiashim/src/config.h"
#include "libiashim/src/log.h"
#include "libiashim/src/real_driver.h"
#include "libiashim/src/runtime.h"
#include "libiashim/src/sample_rate.h"
#include "libiashim/src/nvml_loop.h"
#include "libiashim/src/thread_buffer.h"
#include "schemas/telemetry_generated.h"

namespace iashim {
namespace {

constexpr uint64_t kHelloEveryNs = 10'000'000'000ULL;
constexpr uint64_t kNamesEveryNs = 30'000'000'000ULL;
constexpr uint64_t kSampleGiveUpNs = 5'000'000'000ULL;

std::string CommandLine() {
  std::string out;
  FILE* f = std::fopen("/proc/self/cmdline", "r");
  if (f == nullptr) return out;
  char buf[257];
  const size_t n = std::fread(buf, 1, 256, f);
  std::fclose(f);
  for (size_t i = 0; i < n; ++i) out += buf[i] == '\0' ? ' ' : buf[i];
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string HostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

uint64_t UnixNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ULL + uint64_t(ts.tv_nsec);
}

void Grow(std::vector<uint8_t>& v, uint32_t id) {
  if (id >= v.size()) v.resize(id + 1, 0);
}

}  // namespace

Drainer::Drainer(Runtime* runtime) : runtime_(runtime) {}

Drainer::~Drainer() { Stop(); }

void Drainer::Start() {
  const Config& c = runtime_->config();
  const int pid = getpid();
  clock_ = std::make_unique<TickConverter>();
  const uint64_t now = MonotonicNs();
  window_ = std::make_unique<WindowAggregator>(now);
  window_end_ns_ = now + uint64_t(c.window_ms) * 1'000'000;
  if (!c.trace_path.empty()) {
    std::string path = ExpandTracePath(c.trace_path, pid);
    // A fork() child without %p in the pattern must not overwrite the parent's.
    if (g_phase.load() == kForkedChild && path == c.trace_path) path += "." + std::to_string(pid);
    std::string error;
    if (!trace_.Open(path, uint32_t(pid), &error)) IASHIM_WARN("%s; no trace is written", error.c_str());
  }
  if (!c.coordinator.empty()) {
    transport_ = std::make_unique<Transport>(c.coordinator, c.queue_batches, c.coordinator_key);
    transport_->OnBudget([this](const wire::Budget& b) { ApplyBudget(b); });
    transport_->OnAdvice([this](const wire::Advice& a) { ApplyAdvice(a); });
    if (transport_->Connect()) {
      hello_.pid = pid;
      hello_.host = HostName();
      hello_.job = c.job;
      hello_.command = CommandLine();
      hello_.window_ms = c.window_ms;
      hello_.mem_limit_bytes = c.mem_limit_bytes;
      hello_.start_unix_ns = UnixNs();
      hello_.start_monotonic_ns = now;
      hello_.opportunistic = c.priority == Priority::kOpportunistic;
      hello_.share = c.share;
      hello_.token = c.job_token;
      hello_.rank = c.rank;
      SendHello(now);
    }
  }
  if (c.share_feedback || transport_ != nullptr) {
    nvml_ = std::make_unique<NvmlLoop>(pid, &runtime_->gate(), c.share_feedback,
                                       transport_ != nullptr);
  }
  // Timing launches costs CPU; only do it when someone reads the timings.
  runtime_->set_sample_every(
      trace_.is_open() || transport_ != nullptr || runtime_->gate().throttled() ? c.sample_every : 0);
  if (runtime_->gate().throttled()) {
    IASHIM_INFO("budget from the environment: %s", Describe(runtime_->gate().budget(), now).c_str());
  }
  running_ = true;
  thread_ = std::thread([this] { Run(); });
}

void Drainer::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    wake_.wait_for(lock, std::chrono::milliseconds(kPassMs));
    if (stop_) break;
    try {
      Pass(false);
    } catch (const std::exception& e) {
      IASHIM_DEBUG("telemetry pass failed: %s", e.what());
    } catch (...) {
      IASHIM_DEBUG("telemetry pass failed");
    }
  }
}

void Drainer::Stop() {
  if (!running_) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (nvml_ != nullptr) nvml_->Stop();
  running_ = false;
  try {
    std::lock_guard<std::mutex> lock(mu_);
    Pass(true);
    CloseWindow(MonotonicNs());
    const DrainerTotals t{window_->total_launches(), window_->total_graph_launches(), syncs_,
                          0, samples_done_, 0, trace_.records()};
    if (transport_ != nullptr) {
      transport_->Enqueue(EncodeGoodbye(getpid(), t.launches, -1));
      transport_->Drain(transport_->ExitDrainMs(200, MonotonicNs()));
    }
    if (trace_.is_open()) {
      uint64_t dropped = 0;
      for (ThreadBuffer* b = ThreadBuffer::Head(); b != nullptr; b = b->next()) dropped += b->dropped();
      trace_.Totals(TraceTotals{t.launches, t.graph_launches, t.syncs, dropped, t.samples, 0});
      trace_.Close();
    }
  } catch (const std::exception& e) {
    IASHIM_DEBUG("final telemetry flush failed: %s", e.what());
  } catch (...) {
  }
}

void Drainer::AbandonAfterFork() {
  // The std::thread names a thread that does not exist in the child; destroying
  // it joinable would terminate, so this object is leaked instead.
  if (transport_ != nullptr) transport_->AbandonAfterFork();
  running_ = false;
}

DrainerTotals Drainer::totals(bool drain_first) {
  std::lock_guard<std::mutex> lock(mu_);
  DrainerTotals t;
  if (window_ == nullptr) return t;
  if (drain_first && running_) Pass(false);
  t.launches = window_->total_launches();
  t.graph_launches = window_->total_graph_launches();
  t.syncs = syncs_;
  for (ThreadBuffer* b = ThreadBuffer::Head(); b != nullptr; b = b->next()) t.records_dropped += b->dropped();
  t.samples = samples_done_;
  t.telemetry_sent = transport_ != nullptr ? transport_->sent() : 0;
  t.telemetry_dropped = transport_ != nullptr ? transport_->dropped() : 0;
  t.trace_records = trace_.records();
  return t;
}

void Drainer::ForgetCudaObjects() {
  std::lock_guard<std::mutex> lock(mu_);
  if (window_ == nullptr) return;
  if (running_) Pass(false);
  PollSamples(MonotonicNs(), /*final_pass=*/true);  // the context is still alive here
  for (ThreadBuffer* b = ThreadBuffer::Head(); b != nullptr; b = b->next()) b->DestroyIdleEventPairs();
  current_ctx_ = nullptr;
}

void Drainer::Pass(bool final_pass) {
  clock_->Refresh();
  for (ThreadBuffer* b = ThreadBuffer::Head(); b != nullptr; b = b->next()) {
    const bool was_retired = b->retired();
    const uint32_t thread = b->index();
    b->Drain([&](const LaunchRecord& r, uint64_t seq) {
      const uint64_t t = clock_->ToNs(r.ticks);
      if (r.kind == RecordKind::kLaunch) Name(r.kernel);
      if (r.kind == RecordKind::kSync) ++syncs_;
      window_->Add(r, t);
      if (trace_.is_open()) {
        TraceLaunch e{};
        e.time_ns = t;
        e.seq = seq;
        e.stream = r.stream;
        e.thread = thread;
        e.kernel = r.kernel;
        std::memcpy(e.grid, r.grid, sizeof e.grid);
        std::memcpy(e.block, r.block, sizeof e.block);
        e.event = static_cast<uint8_t>(r.kind);
        e.flags = TraceFlags(static_cast<uint8_t>(r.api), r.per_thread != 0);
        e.shared_mem = r.shared_mem;
        trace_.Launch(e);
      }
      if (r.sample != kNotSampled) {
        pending_.push_back(PendingSample{b, r.sample, r.kind, r.device, r.kernel, thread, seq, MonotonicNs()});
      }
    });
    if (was_retired && !b->HasPairsInFlight()) b->Recycle();
  }
  const uint64_t now = MonotonicNs();
  PollSamples(now, final_pass);
  LaunchGate& gate = runtime_->gate();
  gate.ExpireIfDue(now);
  if (nvml_ != nullptr) nvml_->StartIfNeeded();
  // A throttled process needs kernel costs: sample even with no one reading.
  if (gate.throttled() && runtime_->sample_every() == 0) {
    runtime_->set_sample_every(runtime_->config().sample_every);
  }
  if (now >= window_end_ns_ && !final_pass) {
    CloseWindow(now);
    window_end_ns_ = now + uint64_t(runtime_->config().window_ms) * 1'000'000;
  }
  if (transport_ != nullptr) {
    if (now - last_hello_ns_ >= kHelloEveryNs) SendHello(now);
    transport_->Pump();
  }
  trace_.Flush();
}

void Drainer::Name(uint32_t kernel) {
  if (kernel == KernelRegistry::kOtherKernel) return;
  Grow(named_, kernel);
  KernelInfo& info = runtime_->kernels().info(kernel);
  if (!named_[kernel]) {
    named_[kernel] = 1;
    // A handle first seen at launch: ask the driver for its name.
    if (info.hash.load(std::memory_order_acquire) == 0) {
      const void* handle = reinterpret_cast<const void*>(info.handle.load(std::memory_order_relaxed));
      const char* name = nullptr;
      if (auto get = IASHIM_REAL(cuFuncGetName);
          get != nullptr && get(&name, CUfunction(handle)) == CUDA_SUCCESS && name != nullptr) {
        runtime_->kernels().SetName(handle, name);
      } else if (auto kget = IASHIM_REAL(cuKernelGetName);
                 kget != nullptr && kget(&name, CUkernel(handle)) == CUDA_SUCCESS && name != nullptr) {
        runtime_->kernels().SetName(handle, name);
      }
    }
  }
  Grow(traced_, kernel);
  if (!traced_[kernel] && trace_.is_open()) {
    traced_[kernel] = 1;
    const char* name = info.name.load(std::memory_order_acquire);
    trace_.KernelName(kernel, info.hash.load(std::memory_order_acquire), name != nullptr ? name : "?");
  }
}

void Drainer::PollSamples(uint64_t now_ns, bool final_pass) {
  auto query = IASHIM_REAL(cuEventQuery);
  auto set_current = IASHIM_REAL(cuCtxSetCurrent);
  auto elapsed_v2 = IASHIM_REAL(cuEventElapsedTime_v2);
  auto elapsed_v1 = IASHIM_REAL(cuEventElapsedTime);
  size_t kept = 0;
  for (size_t i = 0; i < pending_.size(); ++i) {
    PendingSample& s = pending_[i];
    EventPair& p = s.buffer->pair(s.slot);
    bool done = true;
    if (query != nullptr && set_current != nullptr && p.end != nullptr) {
      if (p.ctx != current_ctx_ && set_current(p.ctx) == CUDA_SUCCESS) current_ctx_ = p.ctx;
      const CUresult rc = query(p.end);
      if (rc == CUDA_SUCCESS) {
        float ms = 0;
        const CUresult e = elapsed_v2 != nullptr ? elapsed_v2(&ms, p.start, p.end)
                           : elapsed_v1 != nullptr ? elapsed_v1(&ms, p.start, p.end)
                                                   : CUDA_ERROR_NOT_SUPPORTED;
        if (e == CUDA_SUCCESS && ms >= 0) {
          const uint64_t ns = uint64_t(double(ms) * 1e6);
          runtime_->costs().AddSample(s.kernel, ns);
          if (runtime_->kernels().IsCollective(s.kernel)) {
            runtime_->pacer().Observe(
                s.kernel, s.device, ns,
                runtime_->config().pace_collectives && runtime_->gate().throttled());
          }
          if (s.kind == RecordKind::kLaunch) window_->AddSample(s.kernel, s.device, ns);
          ++samples_done_;
          if (trace_.is_open()) trace_.GpuTime(TraceGpuTime{s.thread, 0, s.seq, ns});
        }
      } else if (rc == CUDA_ERROR_NOT_READY) {
        done = final_pass || now_ns - s.queued_ns > kSampleGiveUpNs;
      }
    }
    if (done) {
      s.buffer->ReleaseEventPair(s.slot);
    } else {
      pending_[kept++] = s;
    }
  }
  pending_.resize(kept);
}

void Drainer::CloseWindow(uint64_t now_ns) {
  const WindowSummary w = window_->Close(now_ns);
  // Adapt the sampling rate to this window's launch rate and sampling cost.
  uint64_t cost = 0, samples = 0;
  for (ThreadBuffer* b = ThreadBuffer::Head(); b != nullptr; b = b->next()) {
    cost += b->sample_cost_ns();
    samples += b->samples();
  }
  const uint32_t every = runtime_->sample_every();
  if (every != 0 && now_ns > w.start_ns) {
    const double seconds = double(now_ns - w.start_ns) / 1e9;
    const uint64_t new_samples = samples - samples_seen_;
    const double cost_per_sample = new_samples > 0 ? double(cost - cost_seen_ns_) / new_samples : 0;
    if (new_samples > 0) {
      runtime_->set_sample_every(ChooseSampleEvery(double(w.launches + w.graph_launches) / seconds,
                                                   cost_per_sample, runtime_->config().sample_every));
    }
  }
  cost_seen_ns_ = cost;
  samples_seen_ = samples;
  if (transport_ == nullptr) return;

  SendNames(now_ns - last_names_ns_ >= kNamesEveryNs);
  BatchExtras extras;
  extras.seq = seq_++;
  extras.sample_every = runtime_->sample_every();
  extras.batches_dropped = transport_->dropped();
  const LaunchGate& gate = runtime_->gate();
  extras.budget_share = gate.budget().share;
  extras.held_launches = gate.held_launches() - held_seen_;
  extras.held_ns = gate.held_ns() - held_ns_seen_;
  held_seen_ = gate.held_launches();
  held_ns_seen_ = gate.held_ns();
  extras.charge_scale = gate.charge_scale();
  // Both at the window's close.
  const uint64_t longest_wait_ns = run_queue_wait_.TakeLongestWaitNs(now_ns);
  const std::optional<double> own_busy = own_cpu_use_.TakeBusyFraction(now_ns);
  extras.cpu_wait_ns = WaitOthersCaused(longest_wait_ns, own_busy);
  IASHIM_DEBUG(
      "window %llu: %llu ms, %u iterations of %.3f ms, a thread waited up to %.3f ms "
      "for a CPU, the job used %.3f of its %.2f CPUs",
      (unsigned long long)extras.seq, (unsigned long long)((now_ns - w.start_ns) / 1000000),
      w.iterations, double(w.iteration_ns) / 1e6, double(longest_wait_ns) / 1e6,
      own_busy.value_or(-1), own_cpu_use_.allowed_cpus());
  if (nvml_ != nullptr) {
    extras.gpu_share = nvml_->last_reading();
    extras.gpu_energy_j = nvml_->gpu_energy_j();
  }
  for (ThreadBuffer* b = ThreadBuffer::Head(); b != nullptr; b = b->next()) extras.records_dropped += b->dropped();
  MemoryLedger& mem = runtime_->memory();
  for (int d = 0; d < mem.device_count() && d < 64; ++d) {
    const uint64_t refused = mem.refused(d);
    extras.memory.push_back(DeviceMemoryInfo{d, mem.used(d), mem.peak(d), mem.limit(),
                                             uint32_t(refused - refused_seen_[d])});
    refused_seen_[d] = refused;
  }
  KernelRegistry& kernels = runtime_->kernels();
  transport_->Enqueue(EncodeBatch(getpid(), w, extras, [&kernels](uint32_t id) {
    const uint64_t hash = kernels.info(id).hash.load(std::memory_order_acquire);
    // Unnamed kernels still get a distinct, if process-local, id.
    return hash != 0 ? hash : KernelId("unnamed:" + std::to_string(id));
  }));
}

void Drainer::ApplyBudget(const wire::Budget& message) {
  const uint64_t now = MonotonicNs();
  std::string error;
  const std::optional<Budget> budget = BudgetFromWire(message, now, &error);
  if (!budget) {
    ++budgets_rejected_;
    IASHIM_WARN("ignored a Budget from the coordinator: %s", error.c_str());
    return;
  }
  if (runtime_->gate().SetBudget(*budget, now)) {
    IASHIM_INFO("budget from the coordinator: %s", Describe(*budget, now).c_str());
  }
}

void Drainer::ApplyAdvice(const wire::Advice& advice) {
  const std::string text = advice.text() != nullptr ? Printable(advice.text()->string_view(), 256) : "";
  switch (advice.kind()) {
    case wire::AdviceKind::SendHello:
      SendHello(MonotonicNs());
      break;
    case wire::AdviceKind::Refused:
      IASHIM_WARN("the coordinator refused to manage this process: %s; running unmanaged",
                  text.c_str());
      break;
    case wire::AdviceKind::Token:
      // The token of the job our Hello created: our later Hellos (after a
      // reconnect or a coordinator restart) must carry it.
      if (ValidJobToken(text)) {
        hello_.token = text;
      } else {
        IASHIM_WARN("ignored a malformed job token from the coordinator");
      }
      break;
    default:
      IASHIM_INFO("coordinator: %s", text.c_str());
      break;
  }
}

void Drainer::SendHello(uint64_t now_ns) {
  last_hello_ns_ = now_ns;
  transport_->Enqueue(EncodeHello(hello_));
}

void Drainer::SendNames(bool all) {
  KernelRegistry& kernels = runtime_->kernels();
  std::vector<std::pair<uint64_t, std::string>> names;
  const uint32_t count = kernels.count();
  for (uint32_t id = 1; id <= count && id <= KernelRegistry::kMaxKernels; ++id) {
    const KernelInfo& info = kernels.info(id);
    const char* name = info.name.load(std::memory_order_acquire);
    if (name == nullptr) continue;
    Grow(name_sent_, id);
    if (name_sent_[id] && !all) continue;
    name_sent_[id] = 1;
    names.emplace_back(info.hash.load(std::memory_order_acquire), name);
    if (names.size() == 2048) {
      transport_->Enqueue(EncodeKernelNames(getpid(), names));
      names.clear();
    }
  }
  if (!names.empty()) transport_->Enqueue(EncodeKernelNames(getpid(), names));
  if (all) last_names_ns_ = MonotonicNs();
}

}  // namespace iashim
