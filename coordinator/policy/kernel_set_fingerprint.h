// A model fingerprint: an order-independent hash of the set of kernels a job
// has launched.
//
// Two runs of the same model launch the same kernels (same names, so the same
// FNV-1a ids), in whatever order and with whatever repetition, so the hash of
// the *set* recognises a repeat of a model and lets its persisted profile and
// solo baseline be reused before it has been measured alone.
//
// The hash is the sum (mod 2^64) of Mix64(kernel id) over the distinct ids,
// mixed once more with the set's size. A sum is commutative, so the order in
// which kernels are first seen does not matter; ids are deduplicated, so
// repetition does not matter either. The value changes whenever a new kernel
// appears, and a job keeps discovering kernels for a while (warm-up, the
// first evaluation pass, cuDNN autotuning trying algorithms), so a caller
// should only store or look up by a fingerprint once it has been stable for a
// while (JobProfile::fingerprint_stable()). Autotuning that picks a different
// algorithm on another GPU type gives a different fingerprint: profiles are
// per GPU type anyway.
#ifndef IASHIM_POLICY_KERNEL_SET_FINGERPRINT_H_
#define IASHIM_POLICY_KERNEL_SET_FINGERPRINT_H_

#include <cstddef>
#include <cstdint>

#include "absl/container/flat_hash_set.h"

namespace iashim::policy {

class KernelSetFingerprint {
 public:
  // At most `max_kernels` distinct ids are remembered; later new ids are
  // counted in overflow() and leave the fingerprint unchanged, so a job that
  // generates kernels without end (JIT with shapes in the name) cannot grow
  // the coordinator's memory without bound.
  explicit KernelSetFingerprint(size_t max_kernels = size_t{1} << 16) : max_kernels_(max_kernels) {}

  // Returns true when `kernel` was not in the set and has been added.
  bool Add(uint64_t kernel);

  // 0 for the empty set.
  uint64_t value() const;
  size_t size() const { return seen_.size(); }
  uint64_t overflow() const { return overflow_; }

 private:
  size_t max_kernels_;
  absl::flat_hash_set<uint64_t> seen_;
  uint64_t sum_ = 0;
  uint64_t overflow_ = 0;
};

}  // namespace iashim::policy

#endif  // IASHIM_POLICY_KERNEL_SET_FINGERPRINT_H_
