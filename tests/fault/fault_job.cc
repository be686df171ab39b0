// fault-job: the smallest training-loop stand-in the fault tests need. It
// reaches the driver the way cudart does (fakejob's DriverApi: dlopen and
// cuGetProcAddress), so a preloaded libiashim sees it as it sees a real job.
// Each iteration is one kernel and a synchronise. It prints JSON lines:
//   {"first_kernel_ms": 41.2}     process start (FAULT_START_US) -> first launch returned
//   {"t": 1.0, "iterations": 57, "share": 0.05, "seq": 123, "unix": 1700000000.123}
//                                 every --report-ms ("unix": the wall clock then)
//   {"summary": true, "iterations": 300}
// "share" and "seq" are the budget in force as the shim reports it
// (iashim_get_stats); -1 when no shim is loaded.
#include <dlfcn.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bench/fakejob/driver_api.h"
#include "iashim/iashim.h"

namespace {

struct Options {
  long kernels = 0;         // iterations to run; 0 = until --seconds
  double seconds = 0;       // run this long; 0 = until --kernels
  long kernel_us = 1000;    // simulated duration of each kernel
  std::string name = "fault_step";  // the kernel's name (the job's model fingerprint)
  long alloc_mib = 0;       // device memory held for the whole run
  long report_ms = 0;       // progress line period; 0 = none
  std::string wait_for;     // after the work: wait until this file exists
  double wait_timeout_s = 120;
};

[[noreturn]] void Usage(const char* why) {
  std::fprintf(stderr,
               "fault-job: %s\nusage: fault-job [--kernels N] [--seconds S] [--kernel-us U] "
               "[--name KERNEL] [--alloc-mib M] [--report-ms R] [--wait-for FILE [--wait-timeout-s T]]\n",
               why);
  std::exit(2);
}

long ParseLong(const char* name, const char* text, long lo, long hi) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < lo || v > hi) {
    Usage((std::string(name) + " must be an integer in [" + std::to_string(lo) + ", " +
           std::to_string(hi) + "], not '" + text + "'")
              .c_str());
  }
  return v;
}

double ParseSeconds(const char* name, const char* text) {
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(v >= 0 && v <= 3600)) {
    Usage((std::string(name) + " must be seconds in [0, 3600], not '" + text + "'").c_str());
  }
  return v;
}

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) Usage((a + " needs a value (or is unknown)").c_str());
    const char* v = argv[++i];
    if (a == "--kernels") o.kernels = ParseLong("--kernels", v, 0, 100'000'000);
    else if (a == "--seconds") o.seconds = ParseSeconds("--seconds", v);
    else if (a == "--kernel-us") o.kernel_us = ParseLong("--kernel-us", v, 1, 60'000'000);
    else if (a == "--name") o.name = v;
    else if (a == "--alloc-mib") o.alloc_mib = ParseLong("--alloc-mib", v, 0, 1 << 20);
    else if (a == "--report-ms") o.report_ms = ParseLong("--report-ms", v, 0, 60'000);
    else if (a == "--wait-for") o.wait_for = v;
    else if (a == "--wait-timeout-s") o.wait_timeout_s = ParseSeconds("--wait-timeout-s", v);
    else Usage(("unknown option " + a).c_str());
  }
  if (o.kernels == 0 && o.seconds == 0) Usage("give --kernels or --seconds");
  if (o.name.empty() || o.name.size() > 64 ||
      o.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
          std::string::npos) {
    Usage("--name must be 1-64 letters, digits or _");
  }
  return o;
}

double Now(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

// FAULT_START_US: the wall clock when the process was started, as bash's
// $EPOCHREALTIME ("1700000000.123456") or in microseconds.
double StartTime() {
  const char* s = std::getenv("FAULT_START_US");
  if (s == nullptr || *s == '\0') return -1;
  char* end = nullptr;
  const double v = std::strtod(s, &end);
  if (end == s || *end != '\0' || !(v > 0)) {
    std::fprintf(stderr, "fault-job: FAULT_START_US '%s' is not a time; not reporting it\n", s);
    return -1;
  }
  return std::strchr(s, '.') != nullptr ? v : v / 1e6;
}

using GetStats = int (*)(iashim_stats*, size_t);

void Report(double t, long iterations, GetStats get_stats) {
  iashim_stats stats{};
  double share = -1;
  long long seq = -1;
  if (get_stats != nullptr && get_stats(&stats, sizeof stats) == 0) {
    share = stats.budget_share;
    seq = static_cast<long long>(stats.budget_seq);
  }
  std::printf("{\"t\": %.2f, \"iterations\": %ld, \"share\": %.4f, \"seq\": %lld, \"unix\": %.3f}\n", t,
              iterations, share, seq, Now(CLOCK_REALTIME));
  std::fflush(stdout);
}

int Fail(const iashim::fakejob::DriverApi& api, const char* what, CUresult r) {
  std::fprintf(stderr, "fault-job: %s failed: %s\n", what, api.ErrorName(r).c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = Parse(argc, argv);
  const double started = StartTime();
  absl::StatusOr<iashim::fakejob::DriverApi> loaded =
      iashim::fakejob::LoadDriverApi("libcuda.so.1", false);
  if (!loaded.ok()) {
    std::fprintf(stderr, "fault-job: %s\n", std::string(loaded.status().message()).c_str());
    return 1;
  }
  const iashim::fakejob::DriverApi& api = *loaded;
  CUdevice dev;
  CUcontext ctx;
  CUresult r;
  if ((r = api.cuInit(0)) != CUDA_SUCCESS) return Fail(api, "cuInit", r);
  if ((r = api.cuDeviceGet(&dev, 0)) != CUDA_SUCCESS) return Fail(api, "cuDeviceGet", r);
  if ((r = api.cuDevicePrimaryCtxRetain(&ctx, dev)) != CUDA_SUCCESS)
    return Fail(api, "cuDevicePrimaryCtxRetain", r);
  if ((r = api.cuCtxSetCurrent(ctx)) != CUDA_SUCCESS) return Fail(api, "cuCtxSetCurrent", r);
  CUdeviceptr memory = 0;
  if (o.alloc_mib > 0 && (r = api.cuMemAlloc(&memory, size_t(o.alloc_mib) << 20)) != CUDA_SUCCESS)
    return Fail(api, "cuMemAlloc", r);
  const std::string image =
      "simgpu-module 1\nkernel " + o.name + " fixed_us=" + std::to_string(o.kernel_us) + " mem=0.5\n";
  CUmodule module;
  CUfunction step;
  if ((r = api.cuModuleLoadData(&module, image.c_str())) != CUDA_SUCCESS)
    return Fail(api, "cuModuleLoadData", r);
  if ((r = api.cuModuleGetFunction(&step, module, o.name.c_str())) != CUDA_SUCCESS)
    return Fail(api, "cuModuleGetFunction", r);

  const GetStats get_stats = reinterpret_cast<GetStats>(dlsym(RTLD_DEFAULT, "iashim_get_stats"));
  const double t0 = Now(CLOCK_MONOTONIC);
  double next_report = o.report_ms > 0 ? t0 : 1e300;
  long iterations = 0;
  for (;;) {
    if (o.kernels > 0 && iterations >= o.kernels) break;
    const double now = Now(CLOCK_MONOTONIC);
    if (o.seconds > 0 && now - t0 >= o.seconds) break;
    if (now >= next_report) {
      Report(now - t0, iterations, get_stats);
      next_report += double(o.report_ms) / 1000;
    }
    if ((r = api.cuLaunchKernel(step, 80, 1, 1, 128, 1, 1, 0, nullptr, nullptr, nullptr)) !=
        CUDA_SUCCESS)
      return Fail(api, "cuLaunchKernel", r);
    if (iterations == 0) {
      if (started > 0) {
        std::printf("{\"first_kernel_ms\": %.3f}\n", (Now(CLOCK_REALTIME) - started) * 1000);
      }
      std::printf("{\"launched\": true, \"pid\": %d}\n", int(getpid()));
      std::fflush(stdout);
    }
#if CUDA_VERSION >= 13000
    r = api.cuCtxSynchronize(ctx);
#else
    r = api.cuCtxSynchronize();
#endif
    if (r != CUDA_SUCCESS) return Fail(api, "cuCtxSynchronize", r);
    ++iterations;
  }
  if (o.report_ms > 0) Report(Now(CLOCK_MONOTONIC) - t0, iterations, get_stats);
  if (!o.wait_for.empty()) {
    const double deadline = Now(CLOCK_MONOTONIC) + o.wait_timeout_s;
    while (access(o.wait_for.c_str(), F_OK) != 0) {
      if (Now(CLOCK_MONOTONIC) > deadline) {
        std::fprintf(stderr, "fault-job: %s did not appear within %.0f s\n", o.wait_for.c_str(),
                     o.wait_timeout_s);
        return 3;
      }
      usleep(20'000);
    }
  }
  if (memory != 0 && (r = api.cuMemFree(memory)) != CUDA_SUCCESS) return Fail(api, "cuMemFree", r);
  std::printf("{\"summary\": true, \"iterations\": %ld}\n", iterations);
  return 0;
}
