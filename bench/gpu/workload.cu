// Real-GPU workload for scripts/gpu-check.sh.
//
// It launches a known number of kernels of each kind and prints one JSON line saying
// exactly how many, so the check can compare them with what libiashim.so recorded.
// Kernels are extern "C" so their names in the shim's trace are the plain names below.
//
//   workload --mode train  [--iterations N | --seconds S] [--warmup N] [--gemm-n N] [--triad-mib M]
//                          [--gemm-per-iter K] [--triad-per-iter K] [--sync stream|device]
//   workload --mode oom    [--chunk-mib M] [--max-mib M]
//   workload --mode lookup [--via runtime|symbol|dlsym|proc] [--iterations N]
//   every mode: [--device D]
//
// train:  per iteration, K launches of a tiled GEMM (compute-bound) and K of a triad
//         (memory-bound), then one synchronisation; results are verified at the end.
// oom:    cudaMalloc chunks until failure (or --max-mib); then frees them and allocates
//         the same amount again, which shows whether frees are credited back; then
//         allocates it, resets the device (cudaDeviceReset, no cudaFree) and allocates it
//         once more, which shows whether what the reset freed is credited back.
// lookup: launches a probe kernel through one way of reaching cuLaunchKernel: the
//         runtime (<<<>>>), the linked driver symbol, dlsym on libcuda.so.1, or
//         cuGetProcAddress. Each is a path the shim must intercept.
//
// Build: nvcc -O2 -std=c++17 -o workload workload.cu
// No -lcuda: the CUDA runtime loads the driver itself. The two driver symbols that
// --via symbol and proc call are weak references, bound at load time to libiashim.so's
// exports when it is preloaded (or to libcuda if linked); with neither, those modes exit
// with status 3.
#include <cuda.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

// Weak, so that the program links and runs without -lcuda (see the top of this file).
// cuda.h maps cuGetProcAddress to the _v2 entry point from CUDA 12 on.
#pragma weak cuLaunchKernel
#if CUDA_VERSION >= 12000
#pragma weak cuGetProcAddress_v2
#define kGetProcAddress cuGetProcAddress_v2
#elif CUDA_VERSION >= 11030
#pragma weak cuGetProcAddress
#define kGetProcAddress cuGetProcAddress
#endif

// ---------------------------------------------------------------------------------------
// Kernels: global scope and extern "C", so the driver (and the shim's trace) knows them by
// exactly these names.

constexpr int kTile = 16;

extern "C" __global__ void iashim_fill(float* p, long long n, int kind, int cols) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    // Small multiples of 1/4 and 1/2: every GEMM partial sum is exact in float, so the
    // host can check results exactly whatever the summation order.
    long long r = cols > 0 ? i / cols : 0, c = cols > 0 ? i % cols : 0;
    // kind: 0 GEMM A, 1 GEMM B, 2 triad b, 3 triad c, anything else zero.
    float v = 0.0f;
    if (kind == 0) v = (float)((r * 3 + c) % 5) * 0.25f;
    if (kind == 1) v = (float)((r + 2 * c) % 3) * 0.5f;
    if (kind == 2) v = 1.0f;
    if (kind == 3) v = 2.0f;
    p[i] = v;
  }
}

// C = A * B, all n x n row-major, classic shared-memory tiling.
extern "C" __global__ void iashim_gemm_tiled(const float* a, const float* b, float* c, int n) {
  __shared__ float ta[kTile][kTile];
  __shared__ float tb[kTile][kTile];
  int row = blockIdx.y * kTile + threadIdx.y;
  int col = blockIdx.x * kTile + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < n; t += kTile) {
    int ac = t + threadIdx.x, br = t + threadIdx.y;
    ta[threadIdx.y][threadIdx.x] = (row < n && ac < n) ? a[(size_t)row * n + ac] : 0.0f;
    tb[threadIdx.y][threadIdx.x] = (br < n && col < n) ? b[(size_t)br * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile; ++k) acc += ta[threadIdx.y][k] * tb[k][threadIdx.x];
    __syncthreads();
  }
  if (row < n && col < n) c[(size_t)row * n + col] = acc;
}

// STREAM triad: a = b + s * c.
extern "C" __global__ void iashim_triad(float* a, const float* b, const float* c, float s,
                                        long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    a[i] = b[i] + s * c[i];
  }
}

extern "C" __global__ void iashim_lookup_probe(unsigned long long* counter) {
  if (threadIdx.x == 0) atomicAdd(counter, 1ULL);
}

namespace {

// ---------------------------------------------------------------------------------------
// Errors and options

[[noreturn]] void die(const std::string& msg) {
  std::fprintf(stderr, "workload: %s\n", msg.c_str());
  std::exit(1);
}

[[noreturn]] void usage_error(const std::string& msg) {
  std::fprintf(stderr, "workload: %s (see --help)\n", msg.c_str());
  std::exit(2);
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    die(std::string(what) + " failed: " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
  }
}

void check_drv(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS) die(std::string(what) + " failed: CUresult " + std::to_string(r));
}

const char* kUsage =
    "usage: workload --mode train|oom|lookup [options]\n"
    "  every mode:  --device D             CUDA device index (default 0)\n"
    "  train:       --iterations N         timed iterations (default 1000)\n"
    "               --seconds S            instead: iterate for S seconds, 1..3600 (two\n"
    "                                      processes sharing a GPU then overlap throughout)\n"
    "               --warmup N             untimed iterations first (default 5)\n"
    "               --gemm-n N             GEMM matrix size, 16..8192 (default 512)\n"
    "               --triad-mib M          size of each triad array in MiB (default 16)\n"
    "               --gemm-per-iter K      GEMM launches per iteration (default 2)\n"
    "               --triad-per-iter K     triad launches per iteration (default 6)\n"
    "               --sync stream|device   per-iteration sync (default stream)\n"
    "  oom:         --chunk-mib M          cudaMalloc chunk size (default 64)\n"
    "               --max-mib M            stop after this much (default 16384)\n"
    "  lookup:      --via runtime|symbol|dlsym|proc (default runtime)\n"
    "               --iterations N         probe launches (default 1000)\n"
    "Prints one JSON line on stdout.\n";

struct Options {
  std::string mode;
  int device = 0;
  long long iterations = -1;  // -1: the mode's default
  long long seconds = 0;      // train: iterate for this long instead; 0: by --iterations
  long long warmup = 5;
  long long gemm_n = 512;
  long long triad_mib = 16;
  long long gemm_per_iter = 2;
  long long triad_per_iter = 6;
  std::string sync = "stream";
  long long chunk_mib = 64;
  long long max_mib = 16384;
  std::string via = "runtime";
  std::set<std::string> given;
};

long long parse_int(const std::string& opt, const char* text, long long lo, long long hi) {
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || !(text[0] == '-' || (text[0] >= '0' && text[0] <= '9'))) {
    usage_error(opt + " needs an integer, got '" + text + "'");
  }
  if (errno == ERANGE || v < lo || v > hi) {
    usage_error(opt + " must be in " + std::to_string(lo) + ".." + std::to_string(hi) + ", got " +
                text);
  }
  return v;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    static const std::set<std::string> known = {
        "--mode",   "--device",    "--iterations",    "--warmup",
        "--gemm-n", "--triad-mib", "--gemm-per-iter", "--triad-per-iter",
        "--sync",   "--chunk-mib", "--max-mib",       "--via",
        "--seconds"};
    if (a.rfind("--", 0) != 0) usage_error("unexpected argument '" + a + "'");
    if (!known.count(a)) usage_error("unknown option '" + a + "'");
    if (i + 1 >= argc) usage_error(a + " needs a value");
    const char* v = argv[++i];
    if (o.given.count(a)) usage_error(a + " given twice");
    o.given.insert(a);
    if (a == "--mode") {
      o.mode = v;
      if (o.mode != "train" && o.mode != "oom" && o.mode != "lookup") {
        usage_error("--mode must be train, oom or lookup, got '" + o.mode + "'");
      }
    } else if (a == "--device") {
      o.device = (int)parse_int(a, v, 0, 1023);
    } else if (a == "--iterations") {
      o.iterations = parse_int(a, v, 1, 100000000);
    } else if (a == "--seconds") {
      o.seconds = parse_int(a, v, 1, 3600);
    } else if (a == "--warmup") {
      o.warmup = parse_int(a, v, 0, 1000000);
    } else if (a == "--gemm-n") {
      o.gemm_n = parse_int(a, v, 16, 8192);
    } else if (a == "--triad-mib") {
      o.triad_mib = parse_int(a, v, 1, 4096);
    } else if (a == "--gemm-per-iter") {
      o.gemm_per_iter = parse_int(a, v, 0, 10000);
    } else if (a == "--triad-per-iter") {
      o.triad_per_iter = parse_int(a, v, 0, 10000);
    } else if (a == "--sync") {
      o.sync = v;
      if (o.sync != "stream" && o.sync != "device") {
        usage_error("--sync must be stream or device, got '" + o.sync + "'");
      }
    } else if (a == "--chunk-mib") {
      o.chunk_mib = parse_int(a, v, 1, 1 << 20);
    } else if (a == "--max-mib") {
      o.max_mib = parse_int(a, v, 1, 1LL << 24);
    } else if (a == "--via") {
      o.via = v;
      if (o.via != "runtime" && o.via != "symbol" && o.via != "dlsym" && o.via != "proc") {
        usage_error("--via must be runtime, symbol, dlsym or proc, got '" + o.via + "'");
      }
    }
  }
  if (o.mode.empty()) usage_error("--mode is required (train, oom or lookup)");

  // An option that the chosen mode ignores is almost certainly a mistake in the caller.
  static const std::map<std::string, std::set<std::string>> allowed = {
      {"train",
       {"--mode", "--device", "--iterations", "--warmup", "--gemm-n", "--triad-mib",
        "--gemm-per-iter", "--triad-per-iter", "--sync", "--seconds"}},
      {"oom", {"--mode", "--device", "--chunk-mib", "--max-mib"}},
      {"lookup", {"--mode", "--device", "--via", "--iterations"}},
  };
  for (const auto& g : o.given) {
    if (!allowed.at(o.mode).count(g)) usage_error(g + " does not apply to --mode " + o.mode);
  }
  if (o.given.count("--seconds") && o.given.count("--iterations")) {
    usage_error("--seconds and --iterations are alternatives: give one");
  }
  if (o.iterations < 0) o.iterations = 1000;
  if (o.mode == "train" && o.gemm_per_iter + o.triad_per_iter == 0) {
    usage_error("--gemm-per-iter and --triad-per-iter are both 0: nothing to launch");
  }
  if (o.mode == "oom" && o.chunk_mib > o.max_mib) {
    usage_error("--chunk-mib (" + std::to_string(o.chunk_mib) + ") exceeds --max-mib (" +
                std::to_string(o.max_mib) + ")");
  }
  return o;
}

// ---------------------------------------------------------------------------------------
// Shared helpers

struct Device {
  std::string name;
  int cc_major = 0, cc_minor = 0, sms = 0, driver = 0;
};

Device open_device(int index) {
  int count = 0;
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  if (index >= count) {
    usage_error("--device " + std::to_string(index) + " but only " + std::to_string(count) +
                " device(s) are visible");
  }
  check(cudaSetDevice(index), "cudaSetDevice");
  check(cudaFree(nullptr), "context creation (cudaFree(0))");
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, index), "cudaGetDeviceProperties");
  int driver = 0;
  check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
  return Device{p.name, p.major, p.minor, p.multiProcessorCount, driver};
}

// Names are plain ASCII from the driver, but escape anyway: the JSON must stay parseable.
std::string json_str(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if ((unsigned char)ch < 0x20) {
      out += ' ';
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::string kernels_json(const std::map<std::string, long long>& launched, long long* total) {
  std::string s = "{";
  *total = 0;
  for (const auto& [name, n] : launched) {
    if (s.size() > 1) s += ", ";
    s += json_str(name) + ": " + std::to_string(n);
    *total += n;
  }
  return s + "}";
}

std::string device_json(const Device& d) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "\"device\": %s, \"cc\": \"%d.%d\", \"sms\": %d, \"cuda_runtime\": %d, "
                "\"cuda_driver\": %d",
                json_str(d.name).c_str(), d.cc_major, d.cc_minor, d.sms, CUDART_VERSION, d.driver);
  return buf;
}

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// ---------------------------------------------------------------------------------------
// --mode train

int run_train(const Options& o) {
  Device dev = open_device(o.device);
  std::map<std::string, long long> launched;
  const int n = (int)o.gemm_n;
  const long long gemm_elems = (long long)n * n;
  const long long triad_elems = o.triad_mib * (1LL << 20) / (long long)sizeof(float);

  float *a = nullptr, *b = nullptr, *c = nullptr, *ta = nullptr, *tb = nullptr, *tc = nullptr;
  check(cudaMalloc(&a, gemm_elems * sizeof(float)), "cudaMalloc(GEMM A)");
  check(cudaMalloc(&b, gemm_elems * sizeof(float)), "cudaMalloc(GEMM B)");
  check(cudaMalloc(&c, gemm_elems * sizeof(float)), "cudaMalloc(GEMM C)");
  check(cudaMalloc(&ta, triad_elems * sizeof(float)), "cudaMalloc(triad a)");
  check(cudaMalloc(&tb, triad_elems * sizeof(float)), "cudaMalloc(triad b)");
  check(cudaMalloc(&tc, triad_elems * sizeof(float)), "cudaMalloc(triad c)");

  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");

  // Grid-stride kernels: a few waves per SM is enough to saturate memory bandwidth.
  const int threads = 256;
  auto blocks_for = [&](long long elems) {
    long long want = (elems + threads - 1) / threads;
    return (int)std::max(1LL, std::min(want, (long long)dev.sms * 16));
  };
  auto fill = [&](float* p, long long elems, int kind, int cols) {
    iashim_fill<<<blocks_for(elems), threads, 0, stream>>>(p, elems, kind, cols);
    ++launched["iashim_fill"];
  };
  fill(a, gemm_elems, 0, n);
  fill(b, gemm_elems, 1, n);
  fill(c, gemm_elems, 4, n);
  fill(tb, triad_elems, 2, 0);
  fill(tc, triad_elems, 3, 0);
  fill(ta, triad_elems, 4, 0);
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize(after fill)");
  check(cudaGetLastError(), "fill kernel launch");

  const dim3 gemm_grid((n + kTile - 1) / kTile, (n + kTile - 1) / kTile);
  const dim3 gemm_block(kTile, kTile);
  const int triad_blocks = blocks_for(triad_elems);
  auto iteration = [&]() {
    // Interleave the two kinds as a training step interleaves GEMMs and element-wise ops.
    long long g = o.gemm_per_iter, t = o.triad_per_iter;
    while (g > 0 || t > 0) {
      if (g > 0) {
        iashim_gemm_tiled<<<gemm_grid, gemm_block, 0, stream>>>(a, b, c, n);
        ++launched["iashim_gemm_tiled"];
        --g;
      }
      long long burst = (g > 0) ? std::max(1LL, t / (g + 1)) : t;
      for (long long k = 0; k < burst && t > 0; ++k, --t) {
        iashim_triad<<<triad_blocks, threads, 0, stream>>>(ta, tb, tc, 3.0f, triad_elems);
        ++launched["iashim_triad"];
      }
    }
    if (o.sync == "device") {
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    } else {
      check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    }
    check(cudaGetLastError(), "kernel launch");
  };

  // Warm-up loads the modules (lazy loading) and warms clocks; launches still count.
  for (long long i = 0; i < o.warmup; ++i) iteration();
  const auto t0 = Clock::now();
  long long done = 0;
  if (o.seconds > 0) {
    while (seconds_since(t0) < double(o.seconds)) {
      iteration();
      ++done;
    }
  } else {
    for (; done < o.iterations; ++done) iteration();
  }
  const double elapsed = seconds_since(t0);

  // Verify: the triad everywhere, the GEMM at sampled entries against a host reference.
  bool ok = true;
  std::string why;
  if (o.triad_per_iter > 0) {
    std::vector<float> h(triad_elems);
    check(cudaMemcpy(h.data(), ta, triad_elems * sizeof(float), cudaMemcpyDeviceToHost),
          "cudaMemcpy(triad)");
    for (long long i = 0; i < triad_elems && ok; ++i) {
      if (h[i] != 7.0f) {
        ok = false;
        why = "triad a[" + std::to_string(i) + "]=" + std::to_string(h[i]) + ", expected 7";
      }
    }
  }
  if (o.gemm_per_iter > 0 && ok) {
    std::vector<float> h(gemm_elems);
    check(cudaMemcpy(h.data(), c, gemm_elems * sizeof(float), cudaMemcpyDeviceToHost),
          "cudaMemcpy(GEMM C)");
    for (int s = 0; s < 64 && ok; ++s) {
      int i = (int)((s * 7919LL) % n), j = (int)((s * 104729LL + 13) % n);
      double ref = 0;
      for (int k = 0; k < n; ++k) {
        ref += (double)(((i * 3LL + k) % 5) * 0.25) * (double)(((k + 2LL * j) % 3) * 0.5);
      }
      float got = h[(size_t)i * n + j];
      if (std::fabs(got - ref) > 1e-3 * std::max(1.0, std::fabs(ref))) {
        ok = false;
        why = "GEMM C[" + std::to_string(i) + "][" + std::to_string(j) +
              "]=" + std::to_string(got) + ", expected " + std::to_string(ref);
      }
    }
  }

  for (float* p : {a, b, c, ta, tb, tc}) check(cudaFree(p), "cudaFree");
  check(cudaStreamDestroy(stream), "cudaStreamDestroy");

  long long total = 0;
  std::string kj = kernels_json(launched, &total);
  std::printf(
      "{\"mode\": \"train\", %s, \"iterations\": %lld, \"warmup\": %lld, \"gemm_n\": %d, "
      "\"triad_mib\": %lld, \"gemm_per_iter\": %lld, \"triad_per_iter\": %lld, "
      "\"sync\": \"%s\", \"kernels\": %s, \"launches_total\": %lld, \"elapsed_s\": %.6f, "
      "\"iters_per_s\": %.3f, \"verified\": %s}\n",
      device_json(dev).c_str(), done, o.warmup, n, o.triad_mib, o.gemm_per_iter,
      o.triad_per_iter, o.sync.c_str(), kj.c_str(), total, elapsed,
      elapsed > 0 ? (double)done / elapsed : 0.0, ok ? "true" : "false");
  if (!ok) {
    std::fprintf(stderr, "workload: wrong result: %s\n", why.c_str());
    return 1;
  }
  return 0;
}

// ---------------------------------------------------------------------------------------
// --mode oom

int run_oom(const Options& o) {
  Device dev = open_device(o.device);
  size_t free_b = 0, total_b = 0;
  check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  const size_t chunk = (size_t)o.chunk_mib << 20;

  auto grab = [&](long long max_chunks, std::vector<void*>* got) -> cudaError_t {
    while ((long long)got->size() < max_chunks) {
      void* p = nullptr;
      cudaError_t e = cudaMalloc(&p, chunk);
      if (e != cudaSuccess) {
        cudaGetLastError();  // an allocation failure is not sticky; clear it anyway
        return e;
      }
      got->push_back(p);
    }
    return cudaSuccess;
  };
  auto release = [&](std::vector<void*>* got) {
    for (void* p : *got) check(cudaFree(p), "cudaFree");
    got->clear();
  };

  std::vector<void*> held;
  const long long max_chunks = o.max_mib / o.chunk_mib;
  cudaError_t err = grab(max_chunks, &held);
  const long long chunks = (long long)held.size();
  release(&held);

  // The same amount again: a quota that forgot the frees would refuse this.
  cudaError_t again = grab(chunks, &held);
  const bool realloc_ok = again == cudaSuccess && (long long)held.size() == chunks;
  release(&held);

  // And once more after a device reset that frees it all without a cudaFree
  // (cudaDeviceReset resets the primary context): a quota that kept charging
  // the reset context's memory would refuse this.
  cudaError_t reset_err = grab(chunks, &held);
  held.clear();  // the reset frees them
  if (reset_err == cudaSuccess) reset_err = cudaDeviceReset();
  if (reset_err == cudaSuccess) reset_err = cudaSetDevice(o.device);
  if (reset_err == cudaSuccess) reset_err = grab(chunks, &held);
  const bool reset_realloc_ok = reset_err == cudaSuccess && (long long)held.size() == chunks;
  release(&held);

  std::printf(
      "{\"mode\": \"oom\", %s, \"chunk_mib\": %lld, \"max_mib\": %lld, \"chunks\": %lld, "
      "\"got_mib\": %lld, \"error\": \"%s\", \"reached_max\": %s, \"mem_free_mib\": %llu, "
      "\"mem_total_mib\": %llu, \"realloc_ok\": %s, \"realloc_error\": \"%s\", "
      "\"reset_realloc_ok\": %s, \"reset_realloc_error\": \"%s\"}\n",
      device_json(dev).c_str(), o.chunk_mib, o.max_mib, chunks, chunks * o.chunk_mib,
      err == cudaSuccess ? "none" : cudaGetErrorName(err), err == cudaSuccess ? "true" : "false",
      (unsigned long long)(free_b >> 20), (unsigned long long)(total_b >> 20),
      realloc_ok ? "true" : "false", again == cudaSuccess ? "none" : cudaGetErrorName(again),
      reset_realloc_ok ? "true" : "false",
      reset_err == cudaSuccess ? "none" : cudaGetErrorName(reset_err));
  return 0;
}

// ---------------------------------------------------------------------------------------
// --mode lookup

using LaunchFn = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, unsigned, CUstream, void**, void**);

// Exit status 3 tells the check "this path is not available in this build", not "failed".
[[noreturn]] void unavailable(const std::string& msg) {
  std::fprintf(stderr, "workload: %s\n", msg.c_str());
  std::exit(3);
}

LaunchFn resolve_launch(const std::string& via) {
#if CUDA_VERSION < 11030
  if (via == "symbol" || via == "proc") {
    unavailable("--via " + via + " needs CUDA >= 11.3 headers (these: CUDA_VERSION " +
                std::to_string(CUDA_VERSION) + ")");
  }
#else
  // The driver symbols are weak (top of this file): null when neither -lcuda nor a preloaded
  // library that exports them (libiashim.so does) provides them.
  if (via == "symbol") {
    if (&cuLaunchKernel == nullptr) {
      unavailable("--via symbol: no cuLaunchKernel symbol (preload libiashim.so, or link -lcuda)");
    }
    return &cuLaunchKernel;  // bound by the dynamic linker
  }
  if (via == "proc") {
    if (&kGetProcAddress == nullptr) {
      unavailable("--via proc: no cuGetProcAddress symbol (preload libiashim.so, or link -lcuda)");
    }
    void* fn = nullptr;
#if CUDA_VERSION >= 12000
    CUdriverProcAddressQueryResult status{};
    check_drv(
        kGetProcAddress("cuLaunchKernel", &fn, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &status),
        "cuGetProcAddress(cuLaunchKernel)");
#else
    check_drv(kGetProcAddress("cuLaunchKernel", &fn, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT),
              "cuGetProcAddress(cuLaunchKernel)");
#endif
    if (fn == nullptr) die("cuGetProcAddress(cuLaunchKernel) returned no function");
    return reinterpret_cast<LaunchFn>(fn);
  }
#endif
  // dlsym: the way frameworks that dlopen the driver themselves find it.
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (h == nullptr) h = dlopen("libcuda.so.1", RTLD_NOW);
  if (h == nullptr) die(std::string("dlopen(libcuda.so.1) failed: ") + dlerror());
  void* fn = dlsym(h, "cuLaunchKernel");
  if (fn == nullptr) die("dlsym(libcuda.so.1, cuLaunchKernel) found nothing");
  return reinterpret_cast<LaunchFn>(fn);
}

int run_lookup(const Options& o) {
  Device dev = open_device(o.device);
  unsigned long long* counter = nullptr;
  check(cudaMalloc(&counter, sizeof *counter), "cudaMalloc(counter)");
  check(cudaMemset(counter, 0, sizeof *counter), "cudaMemset(counter)");
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");

  long long launched = 0;
  const auto t0 = Clock::now();
  if (o.via == "runtime") {
    for (long long i = 0; i < o.iterations; ++i, ++launched) {
      iashim_lookup_probe<<<1, 32, 0, stream>>>(counter);
    }
    check(cudaGetLastError(), "probe launch");
  } else {
    LaunchFn launch = resolve_launch(o.via);
    cudaFunction_t f = nullptr;
    check(cudaGetFuncBySymbol(&f, reinterpret_cast<const void*>(&iashim_lookup_probe)),
          "cudaGetFuncBySymbol(iashim_lookup_probe)");
    void* args[] = {&counter};
    for (long long i = 0; i < o.iterations; ++i, ++launched) {
      check_drv(launch(reinterpret_cast<CUfunction>(f), 1, 1, 1, 32, 1, 1, 0,
                       reinterpret_cast<CUstream>(stream), args, nullptr),
                "cuLaunchKernel");
    }
  }
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  const double elapsed = seconds_since(t0);
  unsigned long long executed = 0;
  check(cudaMemcpy(&executed, counter, sizeof executed, cudaMemcpyDeviceToHost),
        "cudaMemcpy(counter)");
  check(cudaFree(counter), "cudaFree");
  check(cudaStreamDestroy(stream), "cudaStreamDestroy");

  const bool ok = (long long)executed == launched;
  std::printf(
      "{\"mode\": \"lookup\", %s, \"via\": \"%s\", \"kernels\": {\"iashim_lookup_probe\": %lld}, "
      "\"launches_total\": %lld, \"executed\": %llu, \"elapsed_s\": %.6f, \"verified\": %s}\n",
      device_json(dev).c_str(), o.via.c_str(), launched, launched, executed, elapsed,
      ok ? "true" : "false");
  if (!ok) {
    std::fprintf(stderr, "workload: %llu probe kernels ran, %lld were launched\n", executed,
                 launched);
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);
  if (o.mode == "train") return run_train(o);
  if (o.mode == "oom") return run_oom(o);
  return run_lookup(o);
}
