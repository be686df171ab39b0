#include "integrations/slurm/device_access.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

namespace iashim::slurm {

DeviceProbe ProbeDeviceFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC | O_NOCTTY);
  if (fd >= 0) {
    close(fd);
    return DeviceProbe::kUsable;
  }
  switch (errno) {
    case ENOENT:
    case ENOTDIR:
      return DeviceProbe::kAbsent;
    case EPERM:
    case EACCES:
      return DeviceProbe::kRefused;
    default:
      return DeviceProbe::kUsable;  // it exists and nothing forbade it (e.g. ENXIO: no driver)
  }
}

UsableGpus FindUsableGpus(const std::string& device_prefix, const ProbeDevice& probe,
                          int max_gpus) {
  UsableGpus out;
  int absent_in_a_row = 0;
  for (int i = 0; i < max_gpus && absent_in_a_row < 8; ++i) {
    switch (probe(device_prefix + std::to_string(i))) {
      case DeviceProbe::kAbsent:
        ++absent_in_a_row;
        break;
      case DeviceProbe::kRefused:
        absent_in_a_row = 0;
        out.any_device_file = true;
        break;
      case DeviceProbe::kUsable:
        absent_in_a_row = 0;
        out.any_device_file = true;
        out.usable.push_back(i);
        break;
    }
  }
  return out;
}

}  // namespace iashim::slurm
