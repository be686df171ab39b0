// Which kernels are collectives (NCCL's all-reduce, all-gather, ...), by name,
// so the shim and the coordinator agree on it without exchanging a table.
//
// A collective kernel's GPU time is mostly waiting for the other ranks: the
// kernel is launched, spins on its SMs until every peer has reached the same
// collective, then moves the data. How long a rank waits there says how far
// ahead of the gang's slowest rank it is, which is what straggler-aware
// budgets need (coordinator/daemon/gang_slowdown.h). The shim times every
// launch of such a kernel (they are one or a few per iteration) instead of 1
// in N.
#ifndef IASHIM_COMMON_WIRE_COLLECTIVE_KERNEL_H_
#define IASHIM_COMMON_WIRE_COLLECTIVE_KERNEL_H_

#include <string_view>

namespace iashim {

// NCCL's kernels are "ncclKernel_*" (before 2.19) and "ncclDevKernel_*" (since),
// RCCL's the same; mangled names contain them too. Matched anywhere in the
// name, case-sensitively: "nccl" in a user kernel's name would be a choice.
constexpr bool IsCollectiveKernel(std::string_view name) {
  return name.find("ncclKernel") != std::string_view::npos ||
         name.find("ncclDevKernel") != std::string_view::npos;
}

}  // namespace iashim

#endif  // IASHIM_COMMON_WIRE_COLLECTIVE_KERNEL_H_
