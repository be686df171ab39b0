// Which of a node's GPUs a task may use, as the node enforces it.
//
// Slurm confines a step to the GPUs it allocated with the device cgroup
// (cgroup.conf ConstrainDevices=yes): opening any other GPU's device file
// fails with EPERM. So the task itself, in its own context, tries each GPU's
// device file (/dev/nvidia<i>); a GPU is usable unless the open is refused
// (EPERM, EACCES). A device file that opens with another error (ENXIO: a
// node file with no driver, as in the project's Slurm test) is not refused.
#ifndef IASHIM_INTEGRATIONS_SLURM_DEVICE_ACCESS_H_
#define IASHIM_INTEGRATIONS_SLURM_DEVICE_ACCESS_H_

#include <functional>
#include <string>
#include <vector>

namespace iashim::slurm {

enum class DeviceProbe { kAbsent, kRefused, kUsable };

// The seam for tests: what opening one device file gives.
using ProbeDevice = std::function<DeviceProbe(const std::string& path)>;

// Opens the file read-write (O_CLOEXEC) and closes it at once.
DeviceProbe ProbeDeviceFile(const std::string& path);

// GPU indexes 0..max_gpus-1 whose device file exists and is not refused, in
// order. The scan stops at the first absent index after 8 absent in a row,
// since device numbers may have holes. An empty result with no device file
// at all means "no GPUs this plugin can see" (say, a simulated GPU): the
// caller then asks for any GPU of the node.
struct UsableGpus {
  std::vector<int> usable;
  bool any_device_file = false;
};
UsableGpus FindUsableGpus(const std::string& device_prefix, const ProbeDevice& probe,
                          int max_gpus = 64);

}  // namespace iashim::slurm

#endif  // IASHIM_INTEGRATIONS_SLURM_DEVICE_ACCESS_H_
