// Stable 64-bit hashes for values the policy persists or compares across
// processes. absl::Hash is salted per process, so it cannot be used for
// anything that is stored or sent.
#ifndef IASHIM_POLICY_HASH_H_
#define IASHIM_POLICY_HASH_H_

#include <cstdint>
#include <string_view>

#include "common/wire/kernel_id.h"

namespace iashim::policy {

// Fnv1a (common/wire/kernel_id.h): the shim names kernels on the wire by
// their hash, so the policy computes the same ids.
using ::iashim::Fnv1a;
using ::iashim::kFnvOffset;

// The splitmix64 finaliser: spreads every input bit over the whole word.
// FNV-1a values differ little in their high bits for similar names, so they
// are mixed before being combined (summed) into a set hash.
constexpr uint64_t Mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

}  // namespace iashim::policy

#endif  // IASHIM_POLICY_HASH_H_
