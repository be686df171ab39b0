// Reads simgpu's own per-process accounting of one simulated GPU (not the
// shim's): each job's share of device time comes from the device model, so the
// benchmark does not trust what it measures.
#ifndef IASHIM_BENCH_GATE_DEVICE_PROBE_H_
#define IASHIM_BENCH_GATE_DEVICE_PROBE_H_

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace simgpu {
class SharedDevice;
}  // namespace simgpu

namespace iashim::gatebench {

// One process's counters (simgpu ProcessSlot), cumulative since it registered.
struct ProcessCounters {
  double gpu_time_ns = 0;   // busy wall time, split evenly among running kernels
  double solo_time_ns = 0;  // the solo time of the work its kernels did: what NVML accounts
  double work_ns = 0;       // solo-equivalent kernel time completed
  double active_ns = 0;    // wall time with at least one of its kernels running
  uint64_t kernels_completed = 0;
};

struct DeviceSnapshot {
  int64_t t_ns = 0;    // the device clock (CLOCK_MONOTONIC) it was taken at
  double busy_ns = 0;  // wall time with any kernel running
  std::map<pid_t, ProcessCounters> procs;
};

class DeviceProbe {
 public:
  // Attaches to device 0 of namespace `ns` once a job has created it, and
  // waits until every pid in `pids` has a slot. Fails after `timeout_s`, or
  // as soon as `alive()` says a job has gone.
  static absl::StatusOr<std::unique_ptr<DeviceProbe>> WaitForJobs(
      const std::string& ns, const std::vector<pid_t>& pids, double timeout_s,
      const std::function<bool()>& alive);
  ~DeviceProbe();

  // Brings the simulation up to now and copies the counters of `pids`;
  // NotFound if one of them no longer has a slot.
  absl::StatusOr<DeviceSnapshot> Snapshot(const std::vector<pid_t>& pids);

 private:
  explicit DeviceProbe(std::unique_ptr<simgpu::SharedDevice> device);
  // Attach attempt plus slot check; null if not ready yet.
  static std::unique_ptr<DeviceProbe> TryAttach(const std::string& ns,
                                                const std::vector<pid_t>& pids);

  std::unique_ptr<simgpu::SharedDevice> device_;
};

// Removes /dev/shm/<ns>-gpu<N>, every device the namespace may have made.
void RemoveDeviceFiles(const std::string& ns);

}  // namespace iashim::gatebench

#endif  // IASHIM_BENCH_GATE_DEVICE_PROBE_H_
