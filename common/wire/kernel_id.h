// The id a kernel has on the wire: the 64-bit FNV-1a hash of its name, so the
// shim, the coordinator, the tools and the tests agree on it without ever
// exchanging a table (KernelNames carries the names for display only).
#ifndef IASHIM_COMMON_WIRE_KERNEL_ID_H_
#define IASHIM_COMMON_WIRE_KERNEL_ID_H_

#include <cstdint>
#include <string_view>

namespace iashim {

// 64-bit FNV-1a, chainable through `h`. Stable across processes and builds,
// unlike absl::Hash, so it may be stored and sent.
inline constexpr uint64_t kFnvOffset = 14695981039346656037ULL;  // 0xcbf29ce484222325
constexpr uint64_t Fnv1a(std::string_view s, uint64_t h = kFnvOffset) {
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return h;
}

// A kernel's id on the wire.
constexpr uint64_t KernelId(std::string_view name) { return Fnv1a(name); }

}  // namespace iashim

#endif  // IASHIM_COMMON_WIRE_KERNEL_ID_H_
