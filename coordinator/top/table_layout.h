// What iashim-top shows, as lines of text: a title, the column headers, each
// GPU followed by its jobs, and a footer of keys. Pure (no terminal, no clock,
// no socket) so what the screen shows at any size is decided and tested here;
// screen.cc only paints the lines.
//
// Every line fits the width given. When the width is short, the least useful
// columns are dropped first (BUDGET, STATE, PID, BUSY%, ...), the JOB column shrinks
// to a minimum with long names cut ("~"), and only then is anything cut at the
// right edge. When the height is short, the body scrolls.
#ifndef IASHIM_COORDINATOR_TOP_TABLE_LAYOUT_H_
#define IASHIM_COORDINATOR_TOP_TABLE_LAYOUT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "coordinator/top/snapshot_view.h"

namespace iashim::top {

// The columns `s` cycles through, in that order.
enum class SortKey { kJob, kShare, kKernels, kSlowdown, kMemory };

struct SortState {
  SortKey key = SortKey::kJob;
  bool reversed = false;

  // Names sort A to Z; numbers largest first (the busiest or most slowed job
  // is the one to look at). `reversed` flips either.
  bool Ascending() const { return (key == SortKey::kJob) != reversed; }
};

SortKey NextSortKey(SortKey key);
std::string_view SortKeyName(SortKey key);  // "job", "share", "kernels/s", ...

// `jobs` in display order: by the sort key, ties by job name then pid, so rows
// do not jump around between snapshots when values are equal.
std::vector<const JobView*> SortedJobs(const std::vector<JobView>& jobs, const SortState& sort);

enum class Column {
  kJob,
  kPid,
  kPrio,
  kState,
  kShare,
  kKernels,
  kBusy,
  kEnergy,  // joules per iteration
  kSlowdown,
  kRun,       // a guaranteed job's slowdown over its whole run so far
  kBaseline,  // where the slowdown's solo baseline came from
  kMem,
  kBudget,
  kCommand,  // only when there is room left over
};

struct PlacedColumn {
  Column column;
  int width;
};

// The columns that fit in `width`, left to right, one space apart.
// `longest_job` is the longest job name to show: JOB grows to it (within
// limits) before COMMAND gets what is left.
std::vector<PlacedColumn> FitColumns(int width, size_t longest_job);

enum class LineStyle {
  kTitle,
  kColumns,
  kGpu,
  kJob,
  kJobOverTarget,    // a guaranteed job slowed beyond its target
  kJobDisconnected,  // the shim has gone away; the row is its last state
  kNote,             // messages in the body: waiting, no GPUs, scroll position
  kFooter,
};

struct Line {
  LineStyle style;
  std::string text;  // printable ASCII, at most `width` characters
};

struct LayoutInput {
  const ClusterView* view = nullptr;  // nullptr: nothing received yet
  std::string_view endpoint;
  double age_s = 0;  // since the newest snapshot arrived (our clock, not the sender's)
  bool paused = false;
  bool legend = false;  // the legend (legend.h) in place of the table
  SortState sort;
  int scroll = 0;        // first body line shown; clamped
  uint64_t dropped = 0;  // messages this tool dropped: invalid, wrong version, not a snapshot
  int width = 80;
  int height = 24;
};

struct Layout {
  std::vector<Line> lines;  // at most `height`, top to bottom
  int max_scroll = 0;       // the largest useful LayoutInput::scroll
  int page = 0;             // body lines on screen: what PgUp/PgDn move by
};

// A snapshot older than this is shown as stale: the coordinator publishes at
// least twice a second, so 3 s without one means it, or the path to it, is
// down.
inline constexpr double kStaleAfterSeconds = 3.0;

Layout LayOut(const LayoutInput& in);

}  // namespace iashim::top

#endif  // IASHIM_COORDINATOR_TOP_TABLE_LAYOUT_H_
