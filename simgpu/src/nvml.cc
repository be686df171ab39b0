// libnvidia-ml.so.1 for simgpu: the NVML queries that monitoring tools and the
// coordinator use, answered from the same shared device state as libcuda.
// Types follow NVML's public API (nvml.h is not part of the CUDA toolkit here).
// Like the real NVML, it lists every device regardless of CUDA_VISIBLE_DEVICES.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "simgpu/src/config_parse.h"
#include "simgpu/src/shared_device.h"

#define NVML_EXPORT extern "C" __attribute__((visibility("default")))

extern "C" {
typedef int nvmlReturn_t;
typedef struct nvmlDevice_st* nvmlDevice_t;
typedef struct {
  unsigned long long total, free, used;
} nvmlMemory_t;
typedef struct {
  unsigned int gpu, memory;
} nvmlUtilization_t;
typedef struct {
  unsigned int pid;
  unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t;
typedef struct {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_t;
typedef struct {
  unsigned int pid;
  unsigned long long timeStamp;  // microseconds
  unsigned int smUtil, memUtil, encUtil, decUtil;
} nvmlProcessUtilizationSample_t;
}

namespace {

constexpr nvmlReturn_t NVML_SUCCESS = 0;
constexpr nvmlReturn_t NVML_ERROR_UNINITIALIZED = 1;
constexpr nvmlReturn_t NVML_ERROR_INVALID_ARGUMENT = 2;
constexpr nvmlReturn_t NVML_ERROR_NOT_FOUND = 6;
constexpr nvmlReturn_t NVML_ERROR_INSUFFICIENT_SIZE = 7;
constexpr nvmlReturn_t NVML_ERROR_DRIVER_NOT_LOADED = 9;
constexpr nvmlReturn_t NVML_ERROR_UNKNOWN = 999;
constexpr unsigned int NVML_VALUE_NOT_AVAILABLE_UINT = 0xFFFFFFFFu;
constexpr unsigned int kInvalidInstance = 0xFFFFFFFFu;
// Utilisation is reported over about this much past time, as NVML does.
constexpr int64_t kUtilWindowNs = 1'000'000'000;

// What this NVML client saw of one process at its last utilisation query, so
// the next query can report the interval since then (as NVML reports samples
// newer than lastSeenTimeStamp).
struct ProcessReading {
  int32_t pid;
  uint64_t start_ticks;  // pid reuse guard
  int64_t registered_ns;
  int64_t t_ns;
  double solo_time_ns;
};

struct NvmlDevice {
  int index;
  simgpu::DeviceSpec spec;
  std::unique_ptr<simgpu::SharedDevice> shared;
  std::vector<ProcessReading> last_readings;  // guarded by Nvml::mu
};

struct Nvml {
  std::mutex mu;
  int refs = 0;
  std::string ns;
  std::vector<std::unique_ptr<NvmlDevice>> devices;
};

Nvml& State() {
  // An object, not a leaked pointer: programs dlopen and dlclose NVML.
  static Nvml nvml;
  return nvml;
}

nvmlReturn_t Init() {
  Nvml& n = State();
  std::lock_guard<std::mutex> lock(n.mu);
  if (n.refs++ > 0) return NVML_SUCCESS;
  const char* ns_env = std::getenv("SIMGPU_NAMESPACE");
  n.ns = ns_env ? ns_env : "simgpu-" + std::to_string(::getuid());
  if (!simgpu::ValidNamespace(n.ns)) {
    std::fprintf(stderr, "simgpu nvml: SIMGPU_NAMESPACE='%s' is invalid\n", n.ns.c_str());
    n.refs = 0;
    return NVML_ERROR_DRIVER_NOT_LOADED;
  }
  const char* devices_env = std::getenv("SIMGPU_DEVICES");
  std::vector<simgpu::DeviceSpec> specs;
  std::string error;
  if (!simgpu::ParseDeviceList(devices_env ? devices_env : simgpu::kDefaultDevices, n.ns, &specs,
                               &error)) {
    std::fprintf(stderr, "simgpu nvml: SIMGPU_DEVICES='%s' is invalid: %s\n", devices_env,
                 error.c_str());
    n.refs = 0;
    return NVML_ERROR_DRIVER_NOT_LOADED;
  }
  n.devices.clear();
  for (size_t i = 0; i < specs.size(); ++i) {
    auto d = std::make_unique<NvmlDevice>();
    d->index = static_cast<int>(i);
    d->spec = specs[i];
    n.devices.push_back(std::move(d));
  }
  return NVML_SUCCESS;
}

NvmlDevice* AsDevice(nvmlDevice_t d) {
  Nvml& n = State();
  std::lock_guard<std::mutex> lock(n.mu);
  if (n.refs == 0) return nullptr;
  for (auto& dev : n.devices) {
    if (reinterpret_cast<nvmlDevice_t>(dev.get()) == d) return dev.get();
  }
  return nullptr;
}

// The device's shared state, created idle if no process has used it yet.
simgpu::SharedDevice* Shared(NvmlDevice* d) {
  Nvml& n = State();
  std::lock_guard<std::mutex> lock(n.mu);
  if (!d->shared) {
    std::string error;
    d->shared = simgpu::SharedDevice::Open(n.ns, d->index, d->spec, false, &error);
    if (!d->shared) std::fprintf(stderr, "simgpu nvml: %s\n", error.c_str());
  }
  return d->shared.get();
}

nvmlReturn_t CheckDevice(nvmlDevice_t device, NvmlDevice** out, simgpu::SharedDevice** shared) {
  *out = AsDevice(device);
  if (*out == nullptr) {
    return State().refs == 0 ? NVML_ERROR_UNINITIALIZED : NVML_ERROR_INVALID_ARGUMENT;
  }
  if (shared != nullptr) {
    *shared = Shared(*out);
    if (*shared == nullptr) return NVML_ERROR_UNKNOWN;
  }
  return NVML_SUCCESS;
}

// The oldest utilisation sample within the last kUtilWindowNs before `now`
// (NVML's readings cover about that much past time); null if there is none.
const simgpu::UtilSample* WindowStart(const simgpu::DeviceState& s, int64_t now) {
  const simgpu::UtilSample* base = nullptr;
  for (const simgpu::UtilSample& u : s.util) {
    if (u.t_ns == 0 || u.t_ns >= now) continue;
    if (now - u.t_ns <= kUtilWindowNs && (base == nullptr || u.t_ns < base->t_ns)) base = &u;
  }
  return base;
}

template <typename Info>
nvmlReturn_t RunningProcesses(nvmlDevice_t device, unsigned int* count, Info* infos) {
  if (count == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  NvmlDevice* d;
  simgpu::SharedDevice* shared;
  if (nvmlReturn_t rc = CheckDevice(device, &d, &shared); rc != NVML_SUCCESS) return rc;
  std::vector<Info> found;
  {
    simgpu::SharedDevice::Lock lock(*shared);
    lock.AdvanceToNow();
    for (const simgpu::ProcessSlot& p : lock.state().procs) {
      if (!p.in_use) continue;
      Info info{};
      info.pid = static_cast<unsigned int>(p.pid);
      info.usedGpuMemory = p.mem_bytes;
      if constexpr (sizeof(Info) > sizeof(nvmlProcessInfo_v1_t)) {
        info.gpuInstanceId = kInvalidInstance;
        info.computeInstanceId = kInvalidInstance;
      }
      found.push_back(info);
    }
  }
  const unsigned int capacity = *count;
  *count = static_cast<unsigned int>(found.size());
  if (capacity < found.size() || (infos == nullptr && !found.empty()))
    return NVML_ERROR_INSUFFICIENT_SIZE;
  for (size_t i = 0; i < found.size(); ++i) infos[i] = found[i];
  return NVML_SUCCESS;
}

}  // namespace

NVML_EXPORT nvmlReturn_t nvmlInit_v2() { return Init(); }
NVML_EXPORT nvmlReturn_t nvmlInit() { return Init(); }
NVML_EXPORT nvmlReturn_t nvmlInitWithFlags(unsigned int) { return Init(); }

NVML_EXPORT nvmlReturn_t nvmlShutdown() {
  Nvml& n = State();
  std::lock_guard<std::mutex> lock(n.mu);
  if (n.refs == 0) return NVML_ERROR_UNINITIALIZED;
  if (--n.refs == 0) n.devices.clear();
  return NVML_SUCCESS;
}

NVML_EXPORT const char* nvmlErrorString(nvmlReturn_t result) {
  switch (result) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_FOUND: return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    default: return "Unknown Error";
  }
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) {
  if (count == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  Nvml& n = State();
  std::lock_guard<std::mutex> lock(n.mu);
  if (n.refs == 0) return NVML_ERROR_UNINITIALIZED;
  *count = static_cast<unsigned int>(n.devices.size());
  return NVML_SUCCESS;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
  if (device == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  Nvml& n = State();
  std::lock_guard<std::mutex> lock(n.mu);
  if (n.refs == 0) return NVML_ERROR_UNINITIALIZED;
  if (index >= n.devices.size()) return NVML_ERROR_INVALID_ARGUMENT;
  *device = reinterpret_cast<nvmlDevice_t>(n.devices[index].get());
  return NVML_SUCCESS;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name, unsigned int length) {
  NvmlDevice* d;
  if (nvmlReturn_t rc = CheckDevice(device, &d, nullptr); rc != NVML_SUCCESS) return rc;
  if (name == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (length <= std::strlen(d->spec.name)) return NVML_ERROR_INSUFFICIENT_SIZE;
  std::strcpy(name, d->spec.name);
  return NVML_SUCCESS;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid, unsigned int length) {
  NvmlDevice* d;
  if (nvmlReturn_t rc = CheckDevice(device, &d, nullptr); rc != NVML_SUCCESS) return rc;
  if (uuid == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  const std::string text = simgpu::FormatUuid(d->spec.uuid);
  if (length <= text.size()) return NVML_ERROR_INSUFFICIENT_SIZE;
  std::strcpy(uuid, text.c_str());
  return NVML_SUCCESS;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory) {
  if (memory == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  NvmlDevice* d;
  simgpu::SharedDevice* shared;
  if (nvmlReturn_t rc = CheckDevice(device, &d, &shared); rc != NVML_SUCCESS) return rc;
  simgpu::SharedDevice::Lock lock(*shared);
  lock.AdvanceToNow();
  const simgpu::DeviceState& s = lock.state();
  memory->total = s.spec.memory_bytes;
  memory->used = std::min(s.mem_used, s.spec.memory_bytes);
  memory->free = memory->total - memory->used;
  return NVML_SUCCESS;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device,
                                                       nvmlUtilization_t* utilization) {
  if (utilization == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  NvmlDevice* d;
  simgpu::SharedDevice* shared;
  if (nvmlReturn_t rc = CheckDevice(device, &d, &shared); rc != NVML_SUCCESS) return rc;
  simgpu::SharedDevice::Lock lock(*shared);
  const int64_t now = lock.AdvanceToNow();
  const simgpu::DeviceState& s = lock.state();
  const simgpu::UtilSample* base = WindowStart(s, now);
  if (base == nullptr) {
    utilization->gpu = utilization->memory = 0;
    return NVML_SUCCESS;
  }
  const double span = double(now - base->t_ns);
  auto pct = [&](double delta) {
    return static_cast<unsigned int>(std::min(100.0, std::max(0.0, 100.0 * delta / span)) + 0.5);
  };
  utilization->gpu = pct(s.busy_ns - base->busy_ns);
  utilization->memory = pct(s.mem_busy_ns - base->mem_busy_ns);
  return NVML_SUCCESS;
}

// Board power in milliwatts, averaged over about the last second (as NVML's
// reading is an average over a recent interval): power_model.h.
NVML_EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int* power) {
  if (power == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  NvmlDevice* d;
  simgpu::SharedDevice* shared;
  if (nvmlReturn_t rc = CheckDevice(device, &d, &shared); rc != NVML_SUCCESS) return rc;
  simgpu::SharedDevice::Lock lock(*shared);
  const int64_t now = lock.AdvanceToNow();
  const simgpu::DeviceState& s = lock.state();
  const simgpu::UtilSample* base = WindowStart(s, now);
  const double watts = base == nullptr ? double(s.spec.idle_watts)
                                       : (s.energy_j - base->energy_j) / (double(now - base->t_ns) * 1e-9);
  *power = static_cast<unsigned int>(std::lround(std::max(0.0, watts) * 1000.0));
  return NVML_SUCCESS;
}

// Energy in millijoules since the simulated device came up (NVML: since the
// driver was last loaded).
NVML_EXPORT nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device,
                                                             unsigned long long* energy) {
  if (energy == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  NvmlDevice* d;
  simgpu::SharedDevice* shared;
  if (nvmlReturn_t rc = CheckDevice(device, &d, &shared); rc != NVML_SUCCESS) return rc;
  simgpu::SharedDevice::Lock lock(*shared);
  lock.AdvanceToNow();
  *energy = static_cast<unsigned long long>(std::llround(lock.state().energy_j * 1000.0));
  return NVML_SUCCESS;
}

// The board power limit in milliwatts: the simulated device's full-load power.
NVML_EXPORT nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int* limit) {
  if (limit == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  NvmlDevice* d;
  if (nvmlReturn_t rc = CheckDevice(device, &d, nullptr); rc != NVML_SUCCESS) return rc;
  *limit = static_cast<unsigned int>(std::lround(double(d->spec.max_watts) * 1000.0));
  return NVML_SUCCESS;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device,
                                                              unsigned int* count,
                                                              nvmlProcessInfo_v1_t* infos) {
  return RunningProcesses(device, count, infos);
}
NVML_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device,
                                                                 unsigned int* count,
                                                                 nvmlProcessInfo_t* infos) {
  return RunningProcesses(device, count, infos);
}
NVML_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device,
                                                                 unsigned int* count,
                                                                 nvmlProcessInfo_t* infos) {
  return RunningProcesses(device, count, infos);
}



// Per process: the share of device time its kernels used over one aggregate
// sample, as a GPU that time-slices between processes accounts it: the time
// the same work takes alone (simgpu's solo_time_ns). simgpu runs kernels of
// different processes side by side, and splitting that wall time evenly
// between them would credit a process with less than the work it got done
// whenever overlapping kernels together progress faster than one alone, so a
// share held against it would give a throttled job more than its share of
// iterations. Over one aggregate sample:
// with lastSeenTimeStamp 0, or for a process this client has not queried
// before, since the process started; otherwise since this client's previous
// query (callers pass the newest timeStamp they saw, so that is the interval
// they asked about). Rounded to the nearest percent, as NVML reports integers.
NVML_EXPORT nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t device,
                                                         nvmlProcessUtilizationSample_t* samples,
                                                         unsigned int* count,
                                                         unsigned long long last_seen_us) {
  if (count == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  NvmlDevice* d;
  simgpu::SharedDevice* shared;
  if (nvmlReturn_t rc = CheckDevice(device, &d, &shared); rc != NVML_SUCCESS) return rc;
  std::vector<nvmlProcessUtilizationSample_t> found;
  std::vector<ProcessReading> readings;
  {
    simgpu::SharedDevice::Lock lock(*shared);
    const int64_t now = lock.AdvanceToNow();
    for (const simgpu::ProcessSlot& p : lock.state().procs) {
      if (!p.in_use) continue;
      readings.push_back({p.pid, p.start_ticks, p.registered_ns, now, p.solo_time_ns});
    }
  }
  Nvml& n = State();
  {
    std::lock_guard<std::mutex> lock(n.mu);
    for (const ProcessReading& r : readings) {
      int64_t since_ns = 0;
      double gpu_before = 0;
      bool have_previous = false;
      for (const ProcessReading& old : d->last_readings) {
        if (old.pid == r.pid && old.start_ticks == r.start_ticks && last_seen_us != 0 &&
            old.t_ns < r.t_ns) {
          since_ns = old.t_ns;
          gpu_before = old.solo_time_ns;
          have_previous = true;
        }
      }
      if (!have_previous) since_ns = r.registered_ns;
      const double interval = double(std::max<int64_t>(1, r.t_ns - since_ns));
      nvmlProcessUtilizationSample_t sample{};
      sample.pid = static_cast<unsigned int>(r.pid);
      sample.timeStamp = static_cast<unsigned long long>(r.t_ns / 1000);
      sample.smUtil = static_cast<unsigned int>(
          std::lround(std::clamp(100.0 * (r.solo_time_ns - gpu_before) / interval, 0.0, 100.0)));
      sample.memUtil = NVML_VALUE_NOT_AVAILABLE_UINT;
      sample.encUtil = sample.decUtil = 0;
      found.push_back(sample);
    }
    d->last_readings = readings;
  }
  const unsigned int capacity = *count;
  *count = static_cast<unsigned int>(found.size());
  if (found.empty()) return NVML_ERROR_NOT_FOUND;
  if (samples == nullptr || capacity < found.size()) return NVML_ERROR_INSUFFICIENT_SIZE;
  for (size_t i = 0; i < found.size(); ++i) samples[i] = found[i];
  return NVML_SUCCESS;
}
