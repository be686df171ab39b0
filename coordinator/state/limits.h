// Bounds on what the store accepts and what it reads back. Writes over a
// bound are refused, so everything written can be read; reads over a bound
// are dropped as corrupt, so a damaged length never drives an allocation.
#ifndef IASHIM_COORDINATOR_STATE_LIMITS_H_
#define IASHIM_COORDINATOR_STATE_LIMITS_H_

#include <cstddef>

namespace iashim::state {

inline constexpr size_t kMaxNameBytes = 256;       // job id, host, gpu type, key
inline constexpr size_t kMaxCommandBytes = 4096;   // a job's command line
inline constexpr size_t kMaxValueBytes = 1 << 20;  // a key/value entry's value
inline constexpr size_t kMaxGangGpus = 64;         // GPUs of one gang job (PlaceRequest.gpus)
// A frame's payload: the largest record (a full-size value) plus FlatBuffers'
// overhead, with room to spare.
inline constexpr size_t kMaxFrameBytes = 2 << 20;

}  // namespace iashim::state

#endif  // IASHIM_COORDINATOR_STATE_LIMITS_H_
