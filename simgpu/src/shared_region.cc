#include "simgpu/src/shared_region.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

namespace simgpu {

void* MapSharedRegion(const std::string& path, size_t size,
                      const std::function<bool(const void*)>& valid,
                      const std::function<void(void*)>& init, std::string* error) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    *error = "cannot open " + path + ": " + std::strerror(errno);
    return nullptr;
  }
  ::flock(fd, LOCK_EX);
  struct stat st;
  bool fresh = ::fstat(fd, &st) != 0 || static_cast<size_t>(st.st_size) != size;
  void* region = nullptr;
  if (fresh && ::ftruncate(fd, static_cast<off_t>(size)) != 0) {
    *error = "cannot size " + path + ": " + std::strerror(errno);
  } else {
    region = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (region == MAP_FAILED) {
      *error = "cannot map " + path + ": " + std::strerror(errno);
      region = nullptr;
    } else if (fresh || !valid(region)) {
      init(region);
    }
  }
  ::flock(fd, LOCK_UN);
  ::close(fd);
  return region;
}

void InitRobustMutex(pthread_mutex_t* mutex) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
  pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
  pthread_mutex_init(mutex, &attr);
  pthread_mutexattr_destroy(&attr);
}

RobustLock::RobustLock(pthread_mutex_t* mutex) : mutex_(mutex) {
  if (pthread_mutex_lock(mutex_) == EOWNERDEAD) pthread_mutex_consistent(mutex_);
}

RobustLock::~RobustLock() { pthread_mutex_unlock(mutex_); }

}  // namespace simgpu
