// The mix of requests a cluster receives, learned from the requests
// themselves: how often each shape (GPUs per job, memory per GPU) arrives.
// Placement uses it to foresee which free capacity the next requests can use
// (fragmentation.h); it knows nothing of the future, only of the requests
// seen so far, each counted once when it first arrives. Like the
// interference model, it is fed and read by one thread (Classes() caches).
#ifndef IASHIM_POLICY_REQUEST_MIX_H_
#define IASHIM_POLICY_REQUEST_MIX_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace iashim::policy {

// One shape of request: `gpus` GPUs of one node, each with `mem_bytes` free
// (0 = the whole GPU, empty).
struct RequestClass {
  int gpus = 1;
  uint64_t mem_bytes = 0;
  double weight = 0;  // its share of the requests (the weights of a Classes() sum to 1)
};

class RequestMix {
 public:
  // Classes beyond this many are folded into the most common ones' weights
  // (dropped, the rest renormalised): a rarely seen shape changes little,
  // and the placement's cost grows with the count.
  static constexpr size_t kMaxClasses = 32;

  // One more request of this shape arrived. gpus < 1 is ignored.
  void Observe(int gpus, uint64_t mem_bytes);

  int64_t observed() const { return observed_; }

  // The most common shapes (at most kMaxClasses), weights summing to 1;
  // empty before any request was observed. Ordered by (gpus, mem_bytes).
  const std::vector<RequestClass>& Classes() const;

 private:
  std::map<std::pair<int, uint64_t>, int64_t> counts_;
  int64_t observed_ = 0;
  mutable std::vector<RequestClass> classes_;
  mutable bool stale_ = true;
};

}  // namespace iashim::policy

#endif  // IASHIM_POLICY_REQUEST_MIX_H_
