// A fixed-size region of memory shared by every process of a simgpu namespace
// through a file under /dev/shm, and the robust process-shared mutex that
// guards such regions, so that a process dying while it holds the lock does not
// wedge the others. The simulated devices (shared_device.h) and the collective
// groups (collective_groups.h) live in such regions.
#ifndef SIMGPU_SHARED_REGION_H_
#define SIMGPU_SHARED_REGION_H_

#include <pthread.h>

#include <cstddef>
#include <functional>
#include <string>

namespace simgpu {

// Maps `path` (creating it) as `size` shared bytes. The first process to map it,
// or any that finds `valid(region)` false (a stale layout), sizes it and runs
// `init(region)`; creation is serialised by an exclusive lock on the file, so
// no process sees a half-initialised region. Returns null with `error` set on
// failure. Unmap with munmap(region, size).
void* MapSharedRegion(const std::string& path, size_t size,
                      const std::function<bool(const void*)>& valid,
                      const std::function<void(void*)>& init, std::string* error);

// Initialises a process-shared, robust mutex in shared memory.
void InitRobustMutex(pthread_mutex_t* mutex);

// Holds a robust mutex; a holder that died mid-update leaves the state as its
// last plain-data write left it, which every update keeps usable.
class RobustLock {
 public:
  explicit RobustLock(pthread_mutex_t* mutex);
  ~RobustLock();
  RobustLock(const RobustLock&) = delete;
  RobustLock& operator=(const RobustLock&) = delete;

 private:
  pthread_mutex_t* mutex_;
};

}  // namespace simgpu

#endif  // SIMGPU_SHARED_REGION_H_
