// Parsing of simgpu's textual inputs: sizes, the device list, visible devices.
// Every parser returns an error message naming what was wrong instead of throwing.
#ifndef SIMGPU_CONFIG_PARSE_H_
#define SIMGPU_CONFIG_PARSE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/text/text.h"
#include "simgpu/src/device_state.h"

namespace simgpu {

// "32GiB", "512MiB", "16GB", "1048576" (bytes): the shim's parser, so both
// read sizes the same way.
using iashim::ParseByteSize;

inline constexpr const char* kDefaultDevices = "Tesla V100-SXM2-32GB:32GiB:80";

// SIMGPU_DEVICES: comma-separated entries NAME:MEMORY:SMS, each optionally
// prefixed by a count, e.g. "2xTesla V100-SXM2-32GB:32GiB:80,NVIDIA A10:24GiB:72".
// At most 16 devices. UUIDs are derived from `ns` and the device index.
bool ParseDeviceList(std::string_view text, std::string_view ns, std::vector<DeviceSpec>* out,
                     std::string* error);

// SIMGPU_LINK_GBPS: the bus bandwidth of the links between a node's GPUs that
// collectives use, in GB/s, 0.01..100000 (collective_cost.h); and
// SIMGPU_FABRIC_GBPS, the bandwidth between nodes, in the same range.
std::optional<double> ParseLinkGbps(std::string_view text);

// SIMGPU_FABRIC: the directory, shared by the simulated nodes of one machine,
// that holds their collective groups. Empty if `path` is the absolute path of
// an existing directory this process may create files in; else what is wrong
// with it ("not an absolute path", "no such directory", ...).
std::string FabricDirProblem(std::string_view path);

// SIMGPU_NAMESPACE: letters, digits, '.', '_' and '-', 1..64 characters.
bool ValidNamespace(std::string_view ns);

// CUDA_VISIBLE_DEVICES as the real driver reads it: comma-separated indices or
// UUIDs ("GPU-..."), stopping at the first entry that names no device.
// Absent (nullopt) means all devices. Returns physical indices in visible order.
std::vector<int> ParseVisibleDevices(std::optional<std::string_view> text,
                                     const std::vector<DeviceSpec>& devices);

// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
std::string FormatUuid(const uint8_t uuid[16]);

}  // namespace simgpu

#endif  // SIMGPU_CONFIG_PARSE_H_
