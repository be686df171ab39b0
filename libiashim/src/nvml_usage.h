// What NVML says about this process's GPU: the GPU time the device accounted
// to the process (NVML's per-process utilisation, the figure `nvidia-smi pmon`
// shows), for the launch gate's share feedback (share_feedback.h), and the
// GPU's energy counter, for telemetry. Read from NvmlLoop's thread.
//
// NVML is dlopen'ed on first use, never linked: a machine without it, or a
// container whose PIDs NVML does not know, simply gets no readings and the
// gate runs on its cost model alone (fail-open).
#ifndef IASHIM_NVML_USAGE_H_
#define IASHIM_NVML_USAGE_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/nvml/nvml_library.h"

namespace iashim {

class NvmlUsage {
 public:
  // nullptr, with the reason in `error`, when NVML cannot be loaded or
  // initialised.
  static std::unique_ptr<NvmlUsage> Open(std::string* error);
  ~NvmlUsage();
  NvmlUsage(const NvmlUsage&) = delete;
  NvmlUsage& operator=(const NvmlUsage&) = delete;

  // The fraction of wall time, in [0, 1], the device accounted to process
  // `pid` since the previous call (on the device where it used the most), or
  // nullopt when no device reports the process (idle, or a PID NVML does not
  // know). The first call only sets the starting point and returns nullopt.
  std::optional<double> ShareSinceLastCall(int pid);

  // The total energy counter, in joules, of the first GPU that lists process
  // `pid` among its compute processes; nullopt when none does (no context
  // yet), or NVML has no energy counter for it.
  std::optional<double> EnergyJoules(int pid);

 private:
  NvmlUsage(std::unique_ptr<nvml::Library> library, std::vector<nvml::Device> devices);

  std::unique_ptr<nvml::Library> library_;
  std::vector<nvml::Device> devices_;
  std::vector<unsigned long long> last_seen_us_;  // per device
  int energy_device_ = -1;                        // where EnergyJoules last found the process
  bool started_ = false;
};

}  // namespace iashim

#endif  // IASHIM_NVML_USAGE_H_
