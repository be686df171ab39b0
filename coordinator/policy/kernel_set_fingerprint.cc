#include "coordinator/policy/kernel_set_fingerprint.h"

#include "coordinator/policy/hash.h"

namespace iashim::policy {

bool KernelSetFingerprint::Add(uint64_t kernel) {
  if (seen_.contains(kernel)) return false;
  if (seen_.size() >= max_kernels_) {
    ++overflow_;
    return false;
  }
  seen_.insert(kernel);
  sum_ += Mix64(kernel);  // unsigned: wraps, by definition
  return true;
}

uint64_t KernelSetFingerprint::value() const {
  if (seen_.empty()) return 0;
  // Mixing in the size separates sets whose mixed sums collide trivially
  // (e.g. {} vs a set summing to 0) and spreads the sum's bits.
  return Mix64(sum_ ^ Mix64(seen_.size()));
}

}  // namespace iashim::policy
