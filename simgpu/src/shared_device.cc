#include "simgpu/src/shared_device.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "simgpu/src/device_slots.h"

namespace simgpu {

struct SharedDevice::Region {
  pthread_mutex_t mutex;
  alignas(64) DeviceState state;
};

namespace {

// Reaping costs a syscall per registered process, so it runs at most this often.
constexpr int64_t kReapPeriodNs = 50'000'000;
// A waiter re-checks at least this often, so work freed by a dead process or a
// destroyed stream is noticed promptly.
constexpr int64_t kMaxWaitSliceNs = 20'000'000;

uint64_t ReadStartTicks(int32_t pid) {
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/%d/stat", pid);
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[1024];
  const ssize_t n = ::read(fd, buf, sizeof(buf) - 1);
  ::close(fd);
  if (n <= 0) return 0;
  buf[n] = '\0';
  // The command name (field 2) may contain spaces; fields resume after the last ')'.
  const char* p = std::strrchr(buf, ')');
  if (p == nullptr) return 0;
  // Field 3, the state: a zombie has exited (its parent has not reaped it
  // yet), and a real driver has already torn down its contexts and memory.
  if (p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X' || p[2] == 'x')) return 0;
  int field = 2;
  for (; *p != '\0' && field < 22; ++p) {
    if (*p == ' ') ++field;
  }
  return std::strtoull(p, nullptr, 10);
}

}  // namespace

int64_t MonotonicNowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

void SleepUntilNs(int64_t deadline_ns) {
  timespec ts{static_cast<time_t>(deadline_ns / 1'000'000'000),
              static_cast<long>(deadline_ns % 1'000'000'000)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

bool ProcessAlive(int32_t pid, uint64_t start_ticks) {
  if (pid <= 0) return false;
  if (::kill(pid, 0) != 0 && errno == ESRCH) return false;
  const uint64_t now_ticks = ReadStartTicks(pid);
  // A reused pid has a different start time; a zombie reads as none.
  return now_ticks != 0 && now_ticks == start_ticks;
}

uint64_t SelfStartTicks() { return ReadStartTicks(static_cast<int32_t>(::getpid())); }

std::string SharedDevicePath(std::string_view ns, int index) {
  return "/dev/shm/" + std::string(ns) + "-gpu" + std::to_string(index);
}

SharedDevice::SharedDevice(Region* region, size_t size, int process_slot)
    : region_(region), size_(size), process_slot_(process_slot) {}

SharedDevice::~SharedDevice() { ::munmap(region_, size_); }

DeviceState& SharedDevice::state() { return region_->state; }

std::unique_ptr<SharedDevice> SharedDevice::Open(std::string_view ns, int index,
                                                 const DeviceSpec& spec,
                                                 bool register_process, std::string* error) {
  const std::string path = SharedDevicePath(ns, index);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    *error = "cannot open " + path + ": " + std::strerror(errno);
    return nullptr;
  }
  // The exclusive file lock serialises creation: the first process initialises.
  ::flock(fd, LOCK_EX);
  struct stat st;
  const size_t size = sizeof(Region);
  bool fresh = ::fstat(fd, &st) != 0 || static_cast<size_t>(st.st_size) != size;
  if (fresh && ::ftruncate(fd, static_cast<off_t>(size)) != 0) {
    *error = "cannot size " + path + ": " + std::strerror(errno);
    ::flock(fd, LOCK_UN);
    ::close(fd);
    return nullptr;
  }
  void* mem = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (mem == MAP_FAILED) {
    *error = "cannot map " + path + ": " + std::strerror(errno);
    ::flock(fd, LOCK_UN);
    ::close(fd);
    return nullptr;
  }
  Region* region = static_cast<Region*>(mem);
  if (!fresh && (region->state.magic != kDeviceStateMagic ||
                 region->state.layout_version != kLayoutVersion)) {
    fresh = true;
  }
  if (fresh) {
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(&region->mutex, &attr);
    pthread_mutexattr_destroy(&attr);
    InitDeviceState(region->state, spec, MonotonicNowNs());
  } else if (std::strncmp(region->state.spec.name, spec.name, sizeof(spec.name)) != 0 ||
             region->state.spec.memory_bytes != spec.memory_bytes ||
             region->state.spec.sm_count != spec.sm_count ||
             region->state.spec.idle_watts != spec.idle_watts ||
             region->state.spec.max_watts != spec.max_watts) {
    std::fprintf(stderr,
                 "simgpu: device %d in %s already exists as '%s'; using it as it is "
                 "(SIMGPU_DEVICES differs between processes)\n",
                 index, path.c_str(), region->state.spec.name);
  }
  ::flock(fd, LOCK_UN);
  ::close(fd);

  std::unique_ptr<SharedDevice> dev(new SharedDevice(region, size, -1));
  if (register_process) {
    Lock lock(*dev);
    lock.AdvanceToNow();
    const int32_t pid = static_cast<int32_t>(::getpid());
    int slot = RegisterProcess(lock.state(), pid, SelfStartTicks());
    if (slot < 0) {
      ReapDeadProcesses(lock.state(), ProcessAlive);
      slot = RegisterProcess(lock.state(), pid, SelfStartTicks());
    }
    if (slot < 0) {
      *error = "all " + std::to_string(kMaxProcesses) + " process slots of " + path +
               " are in use";
      return nullptr;
    }
    dev->process_slot_ = slot;
  }
  return dev;
}

std::unique_ptr<SharedDevice> SharedDevice::Attach(std::string_view ns, int index) {
  const std::string path = SharedDevicePath(ns, index);
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return nullptr;
  ::flock(fd, LOCK_SH);
  struct stat st;
  std::unique_ptr<SharedDevice> dev;
  if (::fstat(fd, &st) == 0 && static_cast<size_t>(st.st_size) == sizeof(Region)) {
    void* mem = ::mmap(nullptr, sizeof(Region), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (mem != MAP_FAILED) {
      Region* region = static_cast<Region*>(mem);
      if (region->state.magic == kDeviceStateMagic &&
          region->state.layout_version == kLayoutVersion) {
        dev.reset(new SharedDevice(region, sizeof(Region), -1));
      } else {
        ::munmap(mem, sizeof(Region));
      }
    }
  }
  ::flock(fd, LOCK_UN);
  ::close(fd);
  return dev;
}

SharedDevice::Lock::Lock(SharedDevice& d) : dev_(d) {
  const int rc = pthread_mutex_lock(&dev_.region_->mutex);
  if (rc == EOWNERDEAD) {
    // The holder died mid-update; the state is plain data that every update
    // leaves usable, so carry on from it.
    pthread_mutex_consistent(&dev_.region_->mutex);
  }
}

SharedDevice::Lock::~Lock() { pthread_mutex_unlock(&dev_.region_->mutex); }

int64_t SharedDevice::Lock::AdvanceToNow() {
  DeviceState& s = state();
  const int64_t now = std::max(MonotonicNowNs(), s.clock_ns);
  if (now - s.last_reap_ns >= kReapPeriodNs) {
    s.last_reap_ns = now;
    // Advance first so a dead process's work counts up to now, then drop it.
    Advance(s, now, dev_.params_);
    ReapDeadProcesses(s, ProcessAlive);
  }
  Advance(s, now, dev_.params_);
  return now;
}

void SharedDevice::WaitForCompletion(int stream, uint32_t generation, uint64_t seq) {
  PendingWork work;  // not thread_local: waits may happen in exit handlers
  for (;;) {
    int64_t now;
    {
      Lock lock(*this);
      now = lock.AdvanceToNow();
      const StreamSlot& slot = lock.state().streams[stream];
      if (slot.generation != generation || slot.state == SlotState::kFree ||
          slot.completed >= seq)
        return;
      SnapshotPendingWork(lock.state(), work);
    }
    const int64_t done = ProjectCompletion(work, stream, seq, params_);
    SleepUntilNs(std::min(std::max(done, now + 1000), now + kMaxWaitSliceNs));
  }
}

void SharedDevice::ReleaseSelf() {
  if (process_slot_ < 0) return;
  Lock lock(*this);
  lock.AdvanceToNow();
  ReleaseProcess(lock.state(), process_slot_);
  process_slot_ = -1;
}

}  // namespace simgpu
