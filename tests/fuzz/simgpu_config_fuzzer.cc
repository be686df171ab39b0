// simgpu's configuration parsers (simgpu/src/config_parse.h): the input is
// SIMGPU_DEVICES, SIMGPU_NAMESPACE and CUDA_VISIBLE_DEVICES separated by NUL
// (a missing third part: CUDA_VISIBLE_DEVICES unset), and a byte size.
#include <cstdint>
#include <cstring>
#include <optional>

#include "simgpu/src/config_parse.h"
#include "simgpu/src/device_state.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iashim;
  const std::vector<std::string> parts = fuzz::SplitArgs(data, size);
  const std::string devices_text = parts.size() > 0 ? parts[0] : "";
  const std::string ns = parts.size() > 1 ? parts[1] : "default";
  std::optional<std::string_view> visible;
  if (parts.size() > 2) visible = parts[2];

  (void)simgpu::ParseByteSize(devices_text);
  (void)simgpu::ValidNamespace(ns);
  std::vector<simgpu::DeviceSpec> devices;
  std::string error;
  if (!simgpu::ParseDeviceList(devices_text, ns, &devices, &error)) {
    if (error.empty()) fuzz::Fail("a refused device list without a reason");
    return 0;
  }
  if (devices.empty() || devices.size() > 16) fuzz::Fail("an accepted list of 0 or >16 devices");
  for (const simgpu::DeviceSpec& d : devices) {
    if (strnlen(d.name, sizeof d.name) == sizeof d.name) fuzz::Fail("a name without a NUL");
    if (d.sm_count <= 0) fuzz::Fail("a device without SMs");
    (void)simgpu::FormatUuid(d.uuid);
  }
  for (const int index : simgpu::ParseVisibleDevices(visible, devices)) {
    if (index < 0 || static_cast<size_t>(index) >= devices.size()) {
      fuzz::Fail("a visible device that does not exist");
    }
  }
  return 0;
}
