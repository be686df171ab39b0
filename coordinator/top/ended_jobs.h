// Which disconnected jobs iashim-top still shows. A job that ends cleanly says
// goodbye and leaves the coordinator's snapshot at once. One that is killed or
// crashes stays in it, disconnected, until the coordinator forgets it
// (--forget-after-s: 60 s by default, maybe hours): its dim row tells the
// operator it went, and after kShowEndedSeconds on this tool's clock it is
// left out, so the table shows what runs. The GPU line counts what was left
// out. A job that comes back (its shim reconnects) is shown again.
//
//   EndedJobs ended;
//   ended.Observe(snapshot, now_s);                 // each snapshot received
//   ClusterView shown = ended.Visible(snapshot, now_s);  // each redraw
#ifndef IASHIM_COORDINATOR_TOP_ENDED_JOBS_H_
#define IASHIM_COORDINATOR_TOP_ENDED_JOBS_H_

#include <map>
#include <string>
#include <utility>

#include "coordinator/top/snapshot_view.h"

namespace iashim::top {

inline constexpr double kShowEndedSeconds = 10.0;

class EndedJobs {
 public:
  // Notes when each job of `view` was first seen disconnected, at `now_s`
  // (any monotonic clock, in seconds); forgets jobs no longer disconnected.
  void Observe(const ClusterView& view, double now_s);

  // `view` without the jobs seen disconnected for more than
  // kShowEndedSeconds, each GPU's `hidden_ended` counting them.
  ClusterView Visible(const ClusterView& view, double now_s) const;

 private:
  using Key = std::pair<std::string, int>;  // job id, pid
  std::map<Key, double> disconnected_since_;
};

}  // namespace iashim::top

#endif  // IASHIM_COORDINATOR_TOP_ENDED_JOBS_H_
