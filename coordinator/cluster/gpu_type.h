// The short GPU type ("v100", "a100", "h200") the policy keys interference
// data by, derived from the name the driver reports. Two nodes with the same
// model must get the same type whatever their form factor or memory size, so
// "Tesla V100-SXM2-32GB" and "Tesla V100-PCIE-16GB" are both "v100".
#ifndef IASHIM_COORDINATOR_CLUSTER_GPU_TYPE_H_
#define IASHIM_COORDINATOR_CLUSTER_GPU_TYPE_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace iashim::cluster {

// The longest GPU type the cluster file accepts and GpuTypeFromName makes.
inline constexpr size_t kMaxTypeBytes = 64;

// The first word of `name` (words split at spaces and '-') that looks like an
// NVIDIA model number, lowercased: one or two letters, one to four digits, at
// most two more letters ("V100", "A10G", "L40S", "GH200", "A6000"). Words such
// as "SXM4", "PCIE", "HBM3" or "80GB" do not match that shape.
// Otherwise (e.g. "NVIDIA GeForce RTX 4090"): the name lowercased without a
// leading "NVIDIA" and keeping only [a-z0-9_-] ("geforcertx4090"), at most
// 64 characters; "unknown" if nothing is left. Always a valid type for the
// cluster file.
std::string GpuTypeFromName(std::string_view name);

}  // namespace iashim::cluster

#endif  // IASHIM_COORDINATOR_CLUSTER_GPU_TYPE_H_
