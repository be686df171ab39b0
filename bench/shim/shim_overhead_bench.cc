// shim_overhead_bench: what libiashim adds to a kernel launch and to an
// allocation, against a direct call into the same driver, in the same process
// and the same run.
//
// Neither libcuda nor libiashim is linked. main() dlopen()s the driver
// (RTLD_GLOBAL, as a CUDA runtime does) and then the shim (RTLD_LOCAL, so its
// exported cu* and dlsym do not interpose on this program) and takes every
// entry point twice: dlsym(driver, name) is the direct call, dlsym(shim, name)
// the hooked one. Both are called through function pointers, as runtimes call
// what cuGetProcAddress returned.
//
// The shim runs unthrottled with telemetry on: IASHIM_COORDINATOR names an ipc
// endpoint that nobody binds, so telemetry batches are built and dropped. That
// is the worst case for the hot path, because the shim samples (times 1 in N
// launches with a CUDA event pair) only when a trace or a coordinator is
// configured. --telemetry=off measures the path without sampling.
//
// Options (before the --benchmark_* ones, which Google Benchmark reads):
//   --driver=null|simgpu|PATH  the driver (default: $IASHIM_BENCH_DRIVER or null)
//   --shim=PATH                libiashim.so (default: the one built with this)
//   --telemetry=on|off         see above (default: on)
#define __CUDA_API_VERSION_INTERNAL 1  // versioned names (_v2) declared as-is
#include <benchmark/benchmark.h>
#include <cuda.h>
#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "bench/shim/overhead_summary.h"
#include "iashim/iashim.h"

namespace {

using LaunchFn = decltype(&::cuLaunchKernel);
using AllocFn = decltype(&::cuMemAlloc_v2);
using FreeFn = decltype(&::cuMemFree_v2);
using StatsFn = decltype(&::iashim_get_stats);

constexpr int kKernels = 8;           // distinct functions for the registry benchmark
constexpr int64_t kPaceEvery = 4096;  // half the shim's 8192-record per-thread ring
constexpr size_t kAllocBytes = size_t(1) << 20;

// kKernels empty kernels k0..k7: a simgpu module image, or PTX for a real driver.
const char kSimgpuImage[] =
    "simgpu-module 1\n"
    "kernel k0 fixed_us=0\nkernel k1 fixed_us=0\nkernel k2 fixed_us=0\nkernel k3 fixed_us=0\n"
    "kernel k4 fixed_us=0\nkernel k5 fixed_us=0\nkernel k6 fixed_us=0\nkernel k7 fixed_us=0\n";
const char kPtxImage[] =
    ".version 7.0\n.target sm_75\n.address_size 64\n"
    ".visible .entry k0() { ret; }\n.visible .entry k1() { ret; }\n"
    ".visible .entry k2() { ret; }\n.visible .entry k3() { ret; }\n"
    ".visible .entry k4() { ret; }\n.visible .entry k5() { ret; }\n"
    ".visible .entry k6() { ret; }\n.visible .entry k7() { ret; }\n";

struct Options {
  std::string driver;
  std::string shim = IASHIM_BENCH_SHIM;
  bool telemetry = true;
};

// The entry points measured, from one library.
struct Api {
  LaunchFn launch = nullptr;
  AllocFn alloc = nullptr;
  FreeFn free = nullptr;
};

struct Bench {
  void* driver = nullptr;
  void* shim = nullptr;
  std::string driver_file;       // absolute path of the driver actually loaded
  std::string simgpu_namespace;  // ours to clean up, if we chose it
  Api direct;
  Api hooked;
  StatsFn stats = nullptr;
  decltype(&::cuCtxSetCurrent) set_current = nullptr;
  CUcontext ctx = nullptr;
  bool fake_functions = false;
  CUfunction functions[kKernels] = {};
};

Bench g;

// Fake CUfunction handles for a driver without modules (the null driver):
// distinct user-space addresses, as the shim's kernel registry expects.
alignas(64) char g_fake_function_storage[kKernels][64];

template <typename Fn>
Fn Symbol(void* handle, const char* name) {
  return reinterpret_cast<Fn>(dlsym(handle, name));
}

bool TakeOption(const char* arg, const char* name, std::string* value) {
  const size_t n = std::strlen(name);
  if (std::strncmp(arg, name, n) != 0 || arg[n] != '=') return false;
  *value = arg + n + 1;
  return true;
}

// Reads our options and removes them from argv.
bool ParseOptions(int* argc, char** argv, Options* o) {
  const char* env = std::getenv("IASHIM_BENCH_DRIVER");
  o->driver = env != nullptr && *env != '\0' ? env : "null";
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    std::string telemetry;
    if (TakeOption(argv[i], "--driver", &o->driver) || TakeOption(argv[i], "--shim", &o->shim)) {
      continue;
    }
    if (TakeOption(argv[i], "--telemetry", &telemetry)) {
      if (telemetry != "on" && telemetry != "off") {
        std::fprintf(stderr, "--telemetry must be on or off, not '%s'\n", telemetry.c_str());
        return false;
      }
      o->telemetry = telemetry == "on";
      continue;
    }
    argv[out++] = argv[i];
  }
  *argc = out;
  argv[out] = nullptr;
  return true;
}

std::string DriverPath(const std::string& choice) {
  if (choice == "null") return IASHIM_BENCH_NULL_DRIVER;
  if (choice == "simgpu") return IASHIM_BENCH_SIMGPU_DRIVER;
  return choice;
}

bool Fail(std::string* error, const std::string& what) {
  *error = what;
  return false;
}

#define CU_OR_FAIL(call)                                                                   \
  do {                                                                                     \
    if (const CUresult rc_ = (call); rc_ != CUDA_SUCCESS)                                  \
      return Fail(error, std::string(#call) + " failed: CUresult " + std::to_string(rc_)); \
  } while (0)

bool LoadDriver(const Options& o, std::string* error) {
  const std::string path = DriverPath(o.driver);
  // simgpu's GPUs live in /dev/shm/<namespace>-gpuN: a private namespace keeps
  // other simgpu processes from slowing this one down (and vice versa).
  if (o.driver != "null" && std::getenv("SIMGPU_NAMESPACE") == nullptr) {
    g.simgpu_namespace = "iashim-bench-" + std::to_string(getpid());
    setenv("SIMGPU_NAMESPACE", g.simgpu_namespace.c_str(), 1);
  }
  g.driver = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (g.driver == nullptr) {
    const char* why = dlerror();
    return Fail(error, "cannot load the driver " + path + ": " + (why ? why : "?") +
                           (o.driver == "simgpu" ? " (build the simgpu_cuda target)" : ""));
  }
  // The file actually loaded, so the shim opens this one and no other.
  Dl_info info{};
  void* probe = dlsym(g.driver, "cuLaunchKernel");
  char resolved[PATH_MAX];
  if (probe == nullptr || dladdr(probe, &info) == 0 || info.dli_fname == nullptr ||
      realpath(info.dli_fname, resolved) == nullptr) {
    return Fail(error, path + " does not export cuLaunchKernel: not a CUDA driver");
  }
  g.driver_file = resolved;
  g.direct.launch = Symbol<LaunchFn>(g.driver, "cuLaunchKernel");
  g.direct.alloc = Symbol<AllocFn>(g.driver, "cuMemAlloc_v2");
  g.direct.free = Symbol<FreeFn>(g.driver, "cuMemFree_v2");
  g.set_current = Symbol<decltype(g.set_current)>(g.driver, "cuCtxSetCurrent");
  if (g.direct.alloc == nullptr || g.direct.free == nullptr || g.set_current == nullptr) {
    return Fail(error, path + " lacks cuMemAlloc_v2, cuMemFree_v2 or cuCtxSetCurrent");
  }
  return true;
}

// A context and kKernels functions, or fake handles for a driver that
// cannot load modules (the null driver accepts any non-null handle).
bool PrepareKernels(std::string* error) {
  auto load = Symbol<decltype(&::cuModuleLoadData)>(g.driver, "cuModuleLoadData");
  if (load == nullptr) {
    g.fake_functions = true;
    for (int i = 0; i < kKernels; ++i)
      g.functions[i] = reinterpret_cast<CUfunction>(g_fake_function_storage[i]);
    return true;
  }
  auto init = Symbol<decltype(&::cuInit)>(g.driver, "cuInit");
  auto device_get = Symbol<decltype(&::cuDeviceGet)>(g.driver, "cuDeviceGet");
  auto retain = Symbol<decltype(&::cuDevicePrimaryCtxRetain)>(g.driver, "cuDevicePrimaryCtxRetain");
  auto get_function = Symbol<decltype(&::cuModuleGetFunction)>(g.driver, "cuModuleGetFunction");
  if (init == nullptr || device_get == nullptr || retain == nullptr || get_function == nullptr) {
    return Fail(
        error,
        "the driver lacks cuInit, cuDeviceGet, cuDevicePrimaryCtxRetain or cuModuleGetFunction");
  }
  CU_OR_FAIL(init(0));
  CUdevice dev = 0;
  CU_OR_FAIL(device_get(&dev, 0));
  CU_OR_FAIL(retain(&g.ctx, dev));
  CU_OR_FAIL(g.set_current(g.ctx));
  CUmodule module = nullptr;
  if (load(&module, kSimgpuImage) != CUDA_SUCCESS) CU_OR_FAIL(load(&module, kPtxImage));
  for (int i = 0; i < kKernels; ++i) {
    const std::string name = "k" + std::to_string(i);
    CU_OR_FAIL(get_function(&g.functions[i], module, name.c_str()));
  }
  return true;
}

bool LoadShim(const Options& o, std::string* error) {
  // Read by the shim when its first hooked call initialises it.
  setenv("IASHIM_REAL_LIBCUDA", g.driver_file.c_str(), 1);
  for (const char* name : {"IASHIM_TRACE", "IASHIM_DISABLE", "IASHIM_MEM_LIMIT"}) unsetenv(name);
  if (o.telemetry) {
    const std::string nobody = "ipc:///tmp/iashim-bench-nobody-" + std::to_string(getpid());
    setenv("IASHIM_COORDINATOR", nobody.c_str(), 1);
  } else {
    unsetenv("IASHIM_COORDINATOR");
  }
  g.shim = dlopen(o.shim.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (g.shim == nullptr) {
    const char* why = dlerror();
    return Fail(error, "cannot load the shim " + o.shim + ": " + (why ? why : "?"));
  }
  g.hooked.launch = Symbol<LaunchFn>(g.shim, "cuLaunchKernel");
  g.hooked.alloc = Symbol<AllocFn>(g.shim, "cuMemAlloc_v2");
  g.hooked.free = Symbol<FreeFn>(g.shim, "cuMemFree_v2");
  g.stats = Symbol<StatsFn>(g.shim, "iashim_get_stats");
  if (g.hooked.launch == nullptr || g.hooked.alloc == nullptr || g.hooked.free == nullptr ||
      g.stats == nullptr) {
    return Fail(error,
                o.shim + " lacks cuLaunchKernel, cuMemAlloc_v2, cuMemFree_v2 or iashim_get_stats");
  }
  if (g.hooked.launch == g.direct.launch) return Fail(error, o.shim + " is the driver itself");
  return true;
}

// Also drains every thread's launch buffer (iashim_get_stats does, first).
iashim_stats Stats() {
  iashim_stats s{};
  g.stats(&s, sizeof s);
  return s;
}

CUresult Launch(LaunchFn launch, CUfunction f) {
  return launch(f, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr);
}

// The shim must observe, not pass through: a hooked launch is recorded, a
// hooked allocation is accounted, and sampling is on exactly with telemetry.
bool CheckShimObserves(const Options& o, std::string* error) {
  const iashim_stats before = Stats();
  CU_OR_FAIL(Launch(g.hooked.launch, g.functions[0]));
  const iashim_stats after = Stats();
  if (after.active != 1)
    return Fail(error, "the shim is not active (pass-through); run with IASHIM_LOG=info");
  if (after.launches != before.launches + 1)
    return Fail(error, "the shim did not record a hooked launch");
  if (o.telemetry != (after.sample_every > 0)) {
    return Fail(error, "sampling is " + std::string(after.sample_every > 0 ? "on" : "off") +
                           " with telemetry " + (o.telemetry ? "on" : "off"));
  }
  CUdeviceptr p = 0;
  CU_OR_FAIL(g.hooked.alloc(&p, kAllocBytes));
  const uint64_t held = Stats().mem_used[0];
  CU_OR_FAIL(g.hooked.free(p));
  if (held != after.mem_used[0] + kAllocBytes || Stats().mem_used[0] != after.mem_used[0]) {
    return Fail(error, "the shim did not account a hooked 1 MiB allocation on device 0");
  }
  return true;
}

// ---- benchmarks ----

void ReportShimCounters(benchmark::State& state, const iashim_stats& before) {
  const iashim_stats after = Stats();
  const double recorded = double(after.launches - before.launches);
  const double dropped = double(after.records_dropped - before.records_dropped);
  state.counters["drop%"] = recorded + dropped > 0 ? 100.0 * dropped / (recorded + dropped) : 0.0;
  state.counters["every"] = double(after.sample_every);
}

// Launches round-robin over `kernels` functions (1 or kKernels). Paced
// (range(0) == 1): every kPaceEvery launches, with the clock stopped, the
// shim's buffers are drained so no record is ever dropped; the direct twin
// stops the clock the same way so both pay the same pause.
void Launches(benchmark::State& state, const Api& api, bool shim, int kernels) {
  const bool paced = state.range(0) != 0;
  g.set_current(g.ctx);  // contexts are per thread
  iashim_stats before{};
  if (shim && state.thread_index() == 0) before = Stats();
  const LaunchFn launch = api.launch;
  const unsigned mask = unsigned(kernels - 1);
  unsigned k = 0;
  int64_t until_pace = kPaceEvery;
  int failed = 0;
  for (auto _ : state) {
    const CUresult rc = Launch(launch, g.functions[k]);
    benchmark::DoNotOptimize(rc);
    failed |= rc;
    k = (k + 1) & mask;
    if (paced && --until_pace == 0) {
      until_pace = kPaceEvery;
      state.PauseTiming();
      if (shim) Stats();
      state.ResumeTiming();
    }
  }
  if (failed != 0) state.SkipWithError("a launch failed");
  if (shim && state.thread_index() == 0) ReportShimCounters(state, before);
}

void AllocFree(benchmark::State& state, const Api& api) {
  g.set_current(g.ctx);
  const AllocFn alloc = api.alloc;
  const FreeFn release = api.free;
  int failed = 0;
  for (auto _ : state) {
    CUdeviceptr p = 0;
    failed |= alloc(&p, kAllocBytes);
    benchmark::DoNotOptimize(p);
    failed |= release(p);
  }
  if (failed != 0) state.SkipWithError("an allocation or free failed");
}

void RegisterAll() {
  using benchmark::RegisterBenchmark;
  using benchmark::State;
  // Twins are named alike but for Direct/Shim (the summary pairs them so).
  RegisterBenchmark("BM_LaunchDirect", [](State& s) { Launches(s, g.direct, false, 1); })
      ->ArgName("paced")
      ->Arg(1)
      ->Arg(0);
  RegisterBenchmark("BM_LaunchShim", [](State& s) { Launches(s, g.hooked, true, 1); })
      ->ArgName("paced")
      ->Arg(1)
      ->Arg(0);
  RegisterBenchmark("BM_LaunchDirect8Kernels",
                    [](State& s) { Launches(s, g.direct, false, kKernels); })
      ->ArgName("paced")
      ->Arg(1);
  RegisterBenchmark("BM_LaunchShim8Kernels",
                    [](State& s) { Launches(s, g.hooked, true, kKernels); })
      ->ArgName("paced")
      ->Arg(1);
  RegisterBenchmark("BM_LaunchDirectThreads", [](State& s) { Launches(s, g.direct, false, 1); })
      ->ArgName("paced")
      ->Arg(1)
      ->Threads(1)
      ->Threads(4);
  RegisterBenchmark("BM_LaunchShimThreads", [](State& s) { Launches(s, g.hooked, true, 1); })
      ->ArgName("paced")
      ->Arg(1)
      ->Threads(1)
      ->Threads(4);
  RegisterBenchmark("BM_AllocFreeDirect", [](State& s) { AllocFree(s, g.direct); });
  RegisterBenchmark("BM_AllocFreeShim", [](State& s) { AllocFree(s, g.hooked); });
}

bool HasFlag(int argc, char** argv, const char* prefix) {
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], prefix, std::strlen(prefix)) == 0) return true;
  }
  return false;
}

void RemoveSimulatedDevices() {
  if (g.simgpu_namespace.empty()) return;
  for (int i = 0; i < 16; ++i) {
    const std::string path = "/dev/shm/" + g.simgpu_namespace + "-gpu" + std::to_string(i);
    unlink(path.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!ParseOptions(&argc, argv, &options)) return 2;
  // Medians need repetitions; the console shows only the aggregates then.
  std::vector<char*> args(argv, argv + argc);
  std::string reps = "--benchmark_repetitions=5";
  std::string aggregates = "--benchmark_display_aggregates_only=true";
  if (!HasFlag(argc, argv, "--benchmark_repetitions")) {
    args.push_back(reps.data());
    if (!HasFlag(argc, argv, "--benchmark_display_aggregates_only"))
      args.push_back(aggregates.data());
  }
  int bench_argc = int(args.size());
  args.push_back(nullptr);
  benchmark::Initialize(&bench_argc, args.data());
  if (benchmark::ReportUnrecognizedArguments(bench_argc, args.data())) return 2;

  std::string error;
  if (!LoadDriver(options, &error) || !PrepareKernels(&error) || !LoadShim(options, &error) ||
      !CheckShimObserves(options, &error)) {
    std::fprintf(stderr, "shim_overhead_bench: %s\n", error.c_str());
    RemoveSimulatedDevices();
    return 1;
  }
  benchmark::AddCustomContext("driver",
                              g.driver_file + (g.fake_functions ? " (fake function handles)" : ""));
  benchmark::AddCustomContext("shim", options.shim);
  benchmark::AddCustomContext("telemetry",
                              options.telemetry ? "on (unbound coordinator, sampling)" : "off");
  RegisterAll();

  iashim_bench::OverheadSummary summary(isatty(STDOUT_FILENO)
                                            ? benchmark::ConsoleReporter::OO_ColorTabular
                                            : benchmark::ConsoleReporter::OO_Tabular);
  benchmark::RunSpecifiedBenchmarks(&summary);

  const iashim_stats s = Stats();
  std::cout
      << "\nAdded cost per call = shim - direct, medians of the repetitions above (one run):\n";
  summary.Print(std::cout);
  std::cout << "\nshim totals: launches recorded " << s.launches << ", records dropped "
            << s.records_dropped << ", launches timed " << s.samples << ", sampling 1 in "
            << s.sample_every << ", telemetry messages dropped " << s.telemetry_dropped << "\n"
            << "paced:1 rows drain the shim's buffers (clock stopped) every " << kPaceEvery
            << " launches: every record is kept.\n"
            << "paced:0 rows run free and overflow the 8192-record ring between the 10 ms drains:\n"
            << "their 'dropped' share of launches took the cheaper drop path.\n"
            << "'added (cpu)' is the launching thread's CPU time; the background thread's is not "
               "in it.\n";
  benchmark::Shutdown();
  RemoveSimulatedDevices();
  return summary.errors() > 0 ? 1 : 0;
}
