#include "simgpu/src/virtual_cosim.h"

#include <algorithm>
#include <limits>
#include <memory>

#include "simgpu/src/device_slots.h"
#include "simgpu/src/timeline.h"

namespace simgpu {
namespace {

enum class Phase { kLaunching, kHostGap, kWaiting };

struct JobState {
  Phase phase = Phase::kHostGap;
  size_t next = 0;         // next kernel of the iteration to launch
  int64_t ready_ns = 0;    // end of the host gap
  int streams[2] = {-1, -1};
  uint64_t targets[2] = {0, 0};
  std::vector<int64_t> completions;
};

}  // namespace

std::vector<double> CoSimulate(const std::vector<VirtualJob>& jobs, const DeviceSpec& spec,
                               double seconds, double warmup_s, const InterferenceParams& params) {
  auto state = std::make_unique<DeviceState>();
  DeviceState& s = *state;
  InitDeviceState(s, spec, 0);
  std::vector<JobState> js(jobs.size());
  for (size_t j = 0; j < jobs.size(); ++j) {
    const int proc = RegisterProcess(s, static_cast<int32_t>(1000 + j), 0);
    js[j].streams[0] = AllocStream(s, proc);
    js[j].streams[1] = AllocStream(s, proc);
  }
  const int64_t end_ns = static_cast<int64_t>(seconds * 1e9);
  PendingWork work;
  int64_t t = 0;
  while (t < end_ns) {
    Advance(s, t, params);
    // Let every job act at time t until none can.
    for (bool acted = true; acted;) {
      acted = false;
      for (size_t j = 0; j < jobs.size(); ++j) {
        JobState& job = js[j];
        const VirtualJob& vj = jobs[j];
        if (job.phase == Phase::kLaunching) {
          while (job.next < vj.iteration.size()) {
            const VirtualKernel& k = vj.iteration[job.next];
            uint64_t seq;
            if (!Enqueue(s, job.streams[k.stream], k.op, &seq)) break;
            job.targets[k.stream] = seq;
            ++job.next;
            acted = true;
          }
          if (job.next == vj.iteration.size()) {
            job.phase = Phase::kWaiting;
            acted = true;
          }
        } else if (job.phase == Phase::kHostGap && job.ready_ns <= t) {
          job.phase = Phase::kLaunching;
          job.next = 0;
          acted = true;
        } else if (job.phase == Phase::kWaiting) {
          const bool done = s.streams[job.streams[0]].completed >= job.targets[0] &&
                            s.streams[job.streams[1]].completed >= job.targets[1];
          if (done) {
            job.completions.push_back(t);
            job.phase = Phase::kHostGap;
            job.ready_ns = t + static_cast<int64_t>(vj.host_gap_ns);
            acted = true;
          }
        }
      }
    }
    // The next moment anything can change.
    SnapshotPendingWork(s, work);
    int64_t next = end_ns;
    for (size_t j = 0; j < jobs.size(); ++j) {
      JobState& job = js[j];
      int64_t wake = end_ns;
      if (job.phase == Phase::kHostGap) {
        wake = job.ready_ns;
      } else if (job.phase == Phase::kLaunching) {
        // Blocked on a full queue: wake when its oldest op completes.
        const int st = job.streams[jobs[j].iteration[job.next].stream];
        PendingWork copy = work;
        wake = ProjectCompletion(copy, st, s.streams[st].completed + 1, params);
      } else {
        wake = 0;
        for (int k = 0; k < 2; ++k) {
          PendingWork copy = work;
          wake = std::max(wake, ProjectCompletion(copy, job.streams[k], job.targets[k], params));
        }
      }
      next = std::min(next, wake);
    }
    t = std::max(next, t + 1);
  }
  std::vector<double> rates;
  const int64_t warmup_ns = static_cast<int64_t>(warmup_s * 1e9);
  for (const JobState& job : js) {
    std::vector<int64_t> c;
    for (int64_t x : job.completions) {
      if (x >= warmup_ns) c.push_back(x);
    }
    rates.push_back(c.size() >= 2 ? double(c.size() - 1) / (double(c.back() - c.front()) / 1e9)
                                  : 0.0);
  }
  return rates;
}

}  // namespace simgpu
