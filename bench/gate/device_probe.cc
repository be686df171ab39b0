#include "bench/gate/device_probe.h"

#include <unistd.h>

#include <chrono>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "bench/gate/interrupt.h"
#include "simgpu/src/device_state.h"
#include "simgpu/src/shared_device.h"

namespace iashim::gatebench {
namespace {

// simgpu makes at most 16 devices per namespace (SIMGPU_DEVICES).
constexpr int kMaxDevices = 16;

const simgpu::ProcessSlot* FindSlot(const simgpu::DeviceState& s, pid_t pid) {
  for (const simgpu::ProcessSlot& p : s.procs) {
    if (p.in_use != 0 && p.pid == pid) return &p;
  }
  return nullptr;
}

}  // namespace

DeviceProbe::DeviceProbe(std::unique_ptr<simgpu::SharedDevice> device)
    : device_(std::move(device)) {}

DeviceProbe::~DeviceProbe() = default;

std::unique_ptr<DeviceProbe> DeviceProbe::TryAttach(const std::string& ns,
                                                    const std::vector<pid_t>& pids) {
  std::unique_ptr<simgpu::SharedDevice> device = simgpu::SharedDevice::Attach(ns, 0);
  if (device == nullptr) return nullptr;
  {
    simgpu::SharedDevice::Lock lock(*device);
    lock.AdvanceToNow();
    for (pid_t pid : pids) {
      if (FindSlot(lock.state(), pid) == nullptr) return nullptr;
    }
  }
  return std::unique_ptr<DeviceProbe>(new DeviceProbe(std::move(device)));
}

absl::StatusOr<std::unique_ptr<DeviceProbe>> DeviceProbe::WaitForJobs(
    const std::string& ns, const std::vector<pid_t>& pids, double timeout_s,
    const std::function<bool()>& alive) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  for (;;) {
    if (std::unique_ptr<DeviceProbe> probe = TryAttach(ns, pids)) return probe;
    if (!alive()) {
      return absl::FailedPreconditionError("a job exited before it registered on the device");
    }
    if (std::chrono::duration<double>(Clock::now() - start).count() > timeout_s) {
      return absl::DeadlineExceededError(absl::StrCat(
          "the jobs did not all register on simulated device ", ns, " within ", timeout_s, " s"));
    }
    // Start-up takes a driver load and a module load: poll every 10 ms.
    if (absl::Status s = SleepUnlessInterrupted(0.01); !s.ok()) return s;
  }
}

absl::StatusOr<DeviceSnapshot> DeviceProbe::Snapshot(const std::vector<pid_t>& pids) {
  DeviceSnapshot snap;
  simgpu::SharedDevice::Lock lock(*device_);
  snap.t_ns = lock.AdvanceToNow();
  const simgpu::DeviceState& s = lock.state();
  snap.busy_ns = s.busy_ns;
  for (pid_t pid : pids) {
    const simgpu::ProcessSlot* p = FindSlot(s, pid);
    if (p == nullptr) {
      return absl::NotFoundError(absl::StrCat("job pid ", pid, " left the simulated device"));
    }
    snap.procs[pid] =
        ProcessCounters{p->gpu_time_ns, p->solo_time_ns, p->work_ns, p->active_ns,
                        p->kernels_completed};
  }
  return snap;
}

void RemoveDeviceFiles(const std::string& ns) {
  for (int i = 0; i < kMaxDevices; ++i) ::unlink(simgpu::SharedDevicePath(ns, i).c_str());
}

}  // namespace iashim::gatebench
