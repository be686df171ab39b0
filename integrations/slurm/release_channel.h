// How a task tells slurmstepd what releasing its placement takes.
//
// Each task asks the coordinator in its own process (forked from slurmstepd,
// just before exec), but the task's end is seen by slurmstepd, which must then
// release the placement with the job's token. A pipe opened in slurmstepd
// before the tasks are forked carries one line per task, "TASK JOB TOKEN\n",
// from child to parent. A line is far shorter than PIPE_BUF, so tasks writing
// at once never interleave. Both ends are close-on-exec: the job never sees them.
#ifndef IASHIM_INTEGRATIONS_SLURM_RELEASE_CHANNEL_H_
#define IASHIM_INTEGRATIONS_SLURM_RELEASE_CHANNEL_H_

#include <map>
#include <string>
#include <vector>

namespace iashim::slurm {

struct ReleaseEntry {
  int local_task = 0;
  std::string job;
  std::string token;
};

// "TASK JOB TOKEN\n"; empty when a field could not be read back.
std::string FormatReleaseLine(const ReleaseEntry& entry);
// Takes every complete line off the front of `buffer`; a malformed line is dropped.
std::vector<ReleaseEntry> TakeReleaseLines(std::string& buffer);

class ReleaseChannel {
 public:
  ReleaseChannel() = default;
  ReleaseChannel(const ReleaseChannel&) = delete;
  ReleaseChannel& operator=(const ReleaseChannel&) = delete;
  ~ReleaseChannel();

  // In slurmstepd, before tasks are forked. False (errno set) on failure.
  bool Open();
  bool is_open() const { return read_fd_ >= 0; }
  // In a task's process.
  bool Send(const ReleaseEntry& entry);
  // In slurmstepd: what the tasks have sent so far, by local task id.
  void Collect();
  bool Take(int local_task, ReleaseEntry* entry);
  std::vector<ReleaseEntry> TakeAll();

 private:
  int read_fd_ = -1;
  int write_fd_ = -1;
  std::string pending_;
  std::map<int, ReleaseEntry> entries_;
};

}  // namespace iashim::slurm

#endif  // IASHIM_INTEGRATIONS_SLURM_RELEASE_CHANNEL_H_
