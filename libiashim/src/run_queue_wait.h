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
// The kernel counts each thread's run-queue wait in
// /proc/self/task/TID/schedstat (second field, nanoseconds; kernels with
// CONFIG_SCHED_INFO, which every distribution kernel has). Where it cannot be
// read the wait counts as 0: unknown is treated as uncontended, as it was
// before the shim measured it. A sleeping thread does not wait, so idle pools
// add nothing.
#ifndef IASHIM_RUN_QUEUE_WAIT_H_
#define IASHIM_RUN_QUEUE_WAIT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace iashim {

// The run-queue wait (ns) in a schedstat line "ON_CPU_NS WAIT_NS TIMESLICES";
// nullopt when the text is not that.
std::optional<uint64_t> ParseSchedstatWait(std::string_view text);

class RunQueueWait {
 public:
  // `task_dir`: where the threads' directories are (a test's own tree).
  explicit RunQueueWait(std::string task_dir = "/proc/self/task");

  // The longest wait of one thread since the previous call (a thread not seen
  // before counts from now: 0). Threads gone are forgotten. Off the launch
  // path: it reads one small file per thread (bench/shim/run_queue_wait_bench:
  // about 6.5 us a thread on the 2-core VM, so 0.4% of a core for a process
  // of 64 threads at 10 windows a second).
  uint64_t TakeLongestWaitNs();

 private:
  std::optional<uint64_t> ReadWaitNs(int dir_fd, std::string_view tid) const;

  std::string task_dir_;
  std::unordered_map<int, uint64_t> last_wait_ns_;  // by thread id
  std::unordered_map<int, uint64_t> now_;           // the reading being taken (reused)
};

}  // namespace iashim

#endif  // IASHIM_RUN_QUEUE_WAIT_H_
