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
#include <vector>

#include "simgpu/src/device_slots.h"
#include "simgpu/src/shared_region.h"

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
// While its work waits for another rank of a collective, which another process
// reports, a waiter re-checks this often: the wait ends within this of the
// last arrival, and the transfer is credited from the arrival itself.
constexpr int64_t kCollectiveWaitSliceNs = 1'000'000;

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

SharedDevice::SharedDevice(Region* region, size_t size, int process_slot, std::string_view ns,
                           int index)
    : region_(region),
      size_(size),
      process_slot_(process_slot),
      ns_(ns),
      index_(index),
      collectives_(ns) {}

SharedDevice::~SharedDevice() { ::munmap(region_, size_); }

DeviceState& SharedDevice::state() { return region_->state; }

std::unique_ptr<SharedDevice> SharedDevice::Open(std::string_view ns, int index,
                                                 const DeviceSpec& spec,
                                                 bool register_process, std::string* error) {
  const std::string path = SharedDevicePath(ns, index);
  const size_t size = sizeof(Region);
  void* mem = MapSharedRegion(
      path, size,
      [](const void* m) {
        const DeviceState& state = static_cast<const Region*>(m)->state;
        return state.magic == kDeviceStateMagic && state.layout_version == kLayoutVersion;
      },
      [&spec](void* m) {
        Region* region = static_cast<Region*>(m);
        InitRobustMutex(&region->mutex);
        InitDeviceState(region->state, spec, MonotonicNowNs());
      },
      error);
  if (mem == nullptr) return nullptr;
  Region* region = static_cast<Region*>(mem);
  const DeviceSpec& existing = region->state.spec;
  if (std::strncmp(existing.name, spec.name, sizeof(spec.name)) != 0 ||
      existing.memory_bytes != spec.memory_bytes || existing.sm_count != spec.sm_count ||
      existing.idle_watts != spec.idle_watts || existing.max_watts != spec.max_watts) {
    std::fprintf(stderr,
                 "simgpu: device %d in %s already exists as '%s'; using it as it is "
                 "(SIMGPU_DEVICES differs between processes)\n",
                 index, path.c_str(), existing.name);
  }

  std::unique_ptr<SharedDevice> dev(new SharedDevice(region, size, -1, ns, index));
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
        dev.reset(new SharedDevice(region, sizeof(Region), -1, ns, index));
      } else {
        ::munmap(mem, sizeof(Region));
      }
    }
  }
  ::flock(fd, LOCK_UN);
  ::close(fd);
  return dev;
}

SharedDevice::Lock::Lock(SharedDevice& d) : dev_(d), lock_(&d.region_->mutex) {}

int64_t SharedDevice::Lock::AdvanceToNow() {
  DeviceState& s = state();
  const int64_t now = std::max(MonotonicNowNs(), s.clock_ns);
  if (now - s.last_reap_ns >= kReapPeriodNs) {
    s.last_reap_ns = now;
    // Advance first so a dead process's work counts up to now, then drop it.
    Advance(s, now, dev_.params_, &dev_.collectives_);
    ReapDeadProcesses(s, ProcessAlive);
  }
  Advance(s, now, dev_.params_, &dev_.collectives_);
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
    CollectiveWait blocked;
    const int64_t done = ProjectCompletion(work, stream, seq, params_, &collectives_, &blocked);
    if (done == kNeverNs) {
      // Bringing the ranks behind up to now may record the arrivals it
      // waits for: then look again at once, or the wait would end a slice
      // after the transfer (an LSTM gang's 15.8 ms iterations took 17).
      if (SimulateDevicesBehind(blocked)) continue;
      SleepUntilNs(now + kCollectiveWaitSliceNs);
      continue;
    }
    SleepUntilNs(std::min(std::max(done, now + 1000), now + kMaxWaitSliceNs));
  }
}

bool SharedDevice::SimulateDevicesBehind(const CollectiveWait& blocked) {
  CollectiveGroups* groups = collectives_.Get();
  if (groups == nullptr || blocked.group < 0) return false;
  const std::vector<int> behind = groups->DevicesBehind(blocked.group, blocked.seq);
  for (int device : behind) {
    if (device == index_) continue;
    SharedDevice* peer = nullptr;
    {
      std::lock_guard<std::mutex> lock(peers_mu_);
      std::unique_ptr<SharedDevice>& slot = peers_[device];
      if (!slot) slot = Attach(ns_, device);
      peer = slot.get();
    }
    if (peer == nullptr) continue;
    Lock lock(*peer);  // never while holding this device's lock
    lock.AdvanceToNow();
  }
  return !behind.empty() &&
         groups->DevicesBehind(blocked.group, blocked.seq).size() < behind.size();
}

void SharedDevice::ReleaseSelf() {
  if (process_slot_ < 0) return;
  Lock lock(*this);
  lock.AdvanceToNow();
  ReleaseProcess(lock.state(), process_slot_);
  process_slot_ = -1;
}

}  // namespace simgpu
