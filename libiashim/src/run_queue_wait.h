// How long the process's threads waited for a CPU.
//
// A training step runs on the host as well as on the GPU: a thread that sits
// in the run queue while other processes hold the CPUs issues its kernels
// late, or holds a lock the launching thread then sleeps on (the shim's own
// background thread polls events and NVML under the driver's locks: on the
// loaded 2-core VM an LSTM's launching thread waited 1-4% of a window while
// its iterations stretched 15-80%), and the step takes longer for a reason no
// GPU budget causes or can fix. The coordinator must not read such a window
// as the job's speed alone (policy/solo_baseline.h), so each telemetry window
// carries the longest run-queue wait of any thread of the process in it.
//
// The kernel counts each thread's time on a CPU and run-queue wait in
// /proc/self/task/TID/schedstat (first and second fields, nanoseconds;
// kernels with CONFIG_SCHED_INFO, which every distribution kernel has). Where
// it cannot be read the wait counts as 0: unknown is treated as uncontended,
// as it was before the shim measured it. A sleeping thread does not wait, so
// idle pools add nothing.
//
// Reading costs about 6.5 us a thread (bench/shim/run_queue_wait_bench), so a
// process of thousands of threads would pay a large share of a core for it.
// At most `max_reads` files are read per call: when the process has more
// threads, those that ran since they were last read (the launching and
// working threads, whose wait is what slows a step) are read first, and the
// others in turn, each at least every ceil(threads / (max_reads / 4)) calls.
// A thread not read in the previous call has its wait since it was last read
// spread evenly over that time: an average where its peak is not known.
#ifndef IASHIM_RUN_QUEUE_WAIT_H_
#define IASHIM_RUN_QUEUE_WAIT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace iashim {

// One thread's counters, from a schedstat line "ON_CPU_NS WAIT_NS TIMESLICES".
struct Schedstat {
  uint64_t on_cpu_ns = 0;
  uint64_t wait_ns = 0;
};
// nullopt when the text is not that line.
std::optional<Schedstat> ParseSchedstat(std::string_view text);

class RunQueueWait {
 public:
  // Files read per call at most: 64 is about 0.4 ms per call on the 2-core
  // VM, 0.4% of a core at 10 windows a second, whatever the thread count.
  static constexpr size_t kDefaultMaxReads = 64;

  // `task_dir`: where the threads' directories are (a test's own tree).
  // `max_reads` (at least 1): files read per call at most.
  explicit RunQueueWait(std::string task_dir = "/proc/self/task",
                        size_t max_reads = kDefaultMaxReads);

  // The longest wait of one thread since the previous call (a thread not seen
  // before counts from now: 0). Threads gone are forgotten. Off the launch
  // path. `now_ns`: CLOCK_MONOTONIC (MonotonicNs()), or a test's own clock;
  // the overload without it reads MonotonicNs().
  uint64_t TakeLongestWaitNs();
  uint64_t TakeLongestWaitNs(uint64_t now_ns);

  // Files the last call read (at most max_reads).
  size_t last_reads() const { return last_reads_; }

 private:
  struct Reading {
    Schedstat counters;
    uint64_t at_ns = 0;  // when read
    bool ran = false;    // it was on a CPU between its last two readings
  };
  std::optional<Schedstat> Read(int dir_fd, int tid) const;
  // Fills chosen_ with the threads of tids_ to read this call.
  void Choose();

  std::string task_dir_;
  size_t max_reads_;
  std::unordered_map<int, Reading> readings_;  // by thread id
  std::vector<int> tids_;                      // this call's threads, ascending (reused)
  std::vector<int> chosen_;                    // the ones read this call (reused)
  int rotation_after_ = 0;  // where the turn of threads not chosen for running resumes
  std::optional<uint64_t> last_call_ns_;
  size_t last_reads_ = 0;
};

}  // namespace iashim

#endif  // IASHIM_RUN_QUEUE_WAIT_H_
