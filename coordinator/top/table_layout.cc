#include "coordinator/top/table_layout.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/text/text.h"
#include "coordinator/top/format.h"
#include "coordinator/top/legend.h"

namespace iashim::top {
namespace {

// JOB never narrower than this while other columns can still be dropped: a
// row whose job cannot be recognised is worth nothing. Nor wider than
// kJobMax, so one silly name cannot push COMMAND off the screen.
constexpr int kJobMin = 8;
constexpr int kJobMax = 40;
constexpr int kCommandMin = 12;

struct ColumnSpec {
  Column column;
  std::string_view header;
  int width;                    // fixed columns; JOB and COMMAND are sized by FitColumns
  bool left_aligned;            // text left, numbers right
  int drop_rank;                // dropped in this order (1 first) when narrow; 0 never
  std::optional<SortKey> sort;  // sortable columns have room for the sort mark
};

// Widths hold the widest value the formatter can produce (format.h) and the
// header, plus one for the sort mark on sortable columns.
// The drop order is the legend's (legend.cc) too.
constexpr ColumnSpec kSpecs[] = {
    {Column::kJob, "JOB", 0, true, 0, SortKey::kJob},
    {Column::kPid, "PID", 7, false, 6, std::nullopt},
    {Column::kPrio, "PRIO", 4, true, 8, std::nullopt},
    {Column::kState, "STATE", 6, true, 5, std::nullopt},
    {Column::kShare, "SHARE", 6, false, 9, SortKey::kShare},
    {Column::kKernels, "KERN/S", 7, false, 10, SortKey::kKernels},
    {Column::kBusy, "BUSY%", 5, false, 7, std::nullopt},
    {Column::kEnergy, "J/IT", 6, false, 1, std::nullopt},
    {Column::kSlowdown, "SLOWDN", 7, false, 12, SortKey::kSlowdown},
    {Column::kRun, "RUN", 6, false, 4, std::nullopt},
    {Column::kBaseline, "BASE", 5, true, 3, std::nullopt},
    {Column::kMem, "MEM", 10, false, 11, SortKey::kMemory},
    {Column::kBudget, "BUDGET", 6, false, 2, std::nullopt},
    {Column::kCommand, "COMMAND", 0, true, 0, std::nullopt},
};

const ColumnSpec& Spec(Column c) {
  for (const ColumnSpec& s : kSpecs) {
    if (s.column == c) return s;
  }
  return kSpecs[0];  // unreachable: every Column has a spec
}

// NaN would break the strict weak ordering std::sort needs; it means unknown,
// which sorts with the smallest values.
double SortValue(const JobView& j, SortKey key) {
  double v = 0;
  switch (key) {
    case SortKey::kJob:
      return 0;
    case SortKey::kShare:
      v = j.share;
      break;
    case SortKey::kKernels:
      v = j.kernels_per_s;
      break;
    case SortKey::kSlowdown:
      v = j.slowdown;
      break;
    case SortKey::kMemory:
      v = static_cast<double>(j.mem_bytes);
      break;
  }
  return std::isnan(v) ? -std::numeric_limits<double>::infinity() : v;
}

std::string Pad(std::string_view text, int width, bool left_aligned) {
  std::string cell = Truncate(text, static_cast<size_t>(std::max(width, 0)));
  const std::string fill(static_cast<size_t>(width) - cell.size(), ' ');
  return left_aligned ? cell + fill : fill + cell;
}

std::string_view StateName(JobState s) {
  switch (s) {
    case JobState::kConnected:
      return "conn";
    case JobState::kDisconnected:
      return "disc";
    case JobState::kLost:
      return "lost";
    case JobState::kPlaced:
      return "placed";
  }
  return "?";
}

// A gang's GPUs, ranks and speed, compactly: " [gpu 0,1; 2 ranks, slowest
// 5.0 it/s]" (the gang runs at its slowest rank's); "" for a one-GPU job.
std::string GangNote(const JobView& j) {
  if (j.gpus.empty()) return "";
  std::string note = " [gpu " + absl::StrJoin(j.gpus, ",");
  if (j.ranks > 0) absl::StrAppend(&note, "; ", j.ranks, j.ranks == 1 ? " rank" : " ranks");
  if (j.slowest_rank_iteration_ns > 0) {
    absl::StrAppendFormat(&note, ", slowest %.1f it/s",
                          1e9 / static_cast<double>(j.slowest_rank_iteration_ns));
  }
  return note + "]";
}

std::string Cell(const GpuView& g, const JobView& j, Column c) {
  switch (c) {
    case Column::kJob:
      return (j.job.empty() ? "-" : Printable(j.job)) + GangNote(j);
    case Column::kPid:
      return absl::StrCat(j.pid);
    case Column::kPrio:
      if (j.beside_guaranteed) return "g+g";
      return j.priority == Priority::kGuaranteed ? "guar" : "opp";
    case Column::kState:
      return std::string(StateName(j.State()));
    case Column::kShare:
      return FormatShare(j.share);
    case Column::kKernels:
      return FormatRate(j.kernels_per_s);
    case Column::kBusy:
      return FormatPercent(g.BusyShare(j));
    case Column::kEnergy:
      return FormatJoules(j.energy_per_iteration_j);
    case Column::kSlowdown:
      return FormatSlowdown(j.slowdown) + (j.OverTarget() ? "!" : "");
    case Column::kRun:
      return FormatSlowdown(j.run_slowdown);
    case Column::kBaseline:
      // "hold": a solo probe holds the job's co-runners to measure it now.
      return j.baseline.empty() ? (j.probing ? "hold" : "-") : j.baseline;
    case Column::kMem:
      return FormatMemCompact(j.mem_bytes, j.mem_limit_bytes);
    case Column::kBudget:
      return j.budget_age_ms == 0 ? "-" : FormatAge(static_cast<double>(j.budget_age_ms) / 1e3);
    case Column::kCommand:
      return Printable(ShortCommand(j.command));
  }
  return "";
}

std::string JoinCells(const std::vector<PlacedColumn>& columns,
                      const std::vector<std::string>& cells) {
  std::string out;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) out += ' ';
    out += Pad(cells[i], columns[i].width, Spec(columns[i].column).left_aligned);
  }
  // Left-aligned last columns leave trailing blanks: they carry nothing.
  out.erase(out.find_last_not_of(' ') + 1);
  return out;
}

std::string HeaderLine(const std::vector<PlacedColumn>& columns, const SortState& sort) {
  std::vector<std::string> cells;
  for (const PlacedColumn& c : columns) {
    const ColumnSpec& spec = Spec(c.column);
    std::string h(spec.header);
    if (spec.sort == sort.key) h += sort.Ascending() ? "^" : "v";
    cells.push_back(std::move(h));
  }
  return JoinCells(columns, cells);
}

std::string GpuLine(const GpuView& g, int width) {
  const std::string left = absl::StrCat(Printable(g.host), ":", g.id, " ", Printable(g.name));
  const std::string busy =
      Known(g.busy) ? absl::StrFormat("%.0f%%", std::min(g.busy, 1.0) * 100) : "-";
  const std::string power = Known(g.power_w) ? absl::StrFormat("  %.0f W", g.power_w) : "";
  std::string right = absl::StrCat(g.node_lost_s >= 0 ? "NODE LOST  " : "",
                                   g.drained ? "DRAINED  " : "", "busy ", busy, power, "  mem ",
                                   FormatBytesPair(g.MemUsed(), g.memory_bytes), "  ",
                                   g.jobs.size(), g.jobs.size() == 1 ? " job" : " jobs");
  if (g.hidden_ended > 0) absl::StrAppend(&right, " +", g.hidden_ended, " ended");
  const int room_for_left = width - 2 - static_cast<int>(right.size());
  if (room_for_left >= std::min<int>(kJobMin, static_cast<int>(left.size()))) {
    // Cut the name rather than the figures: the figures are what changes.
    return Truncate(left, static_cast<size_t>(room_for_left)) + "  " + right;
  }
  return Truncate(left + "  " + right, static_cast<size_t>(width));
}

std::string TitleLine(const LayoutInput& in) {
  std::string t = "iashim-top";
  if (in.view == nullptr) {
    absl::StrAppend(&t, "  waiting for coordinator at ", Printable(in.endpoint));
  } else {
    if (in.paused) absl::StrAppend(&t, "  PAUSED");
    const std::string version =
        in.view->coordinator_version.empty() ? "?" : Printable(in.view->coordinator_version);
    absl::StrAppend(&t, "  coordinator ", version, "  up ", FormatUptime(in.view->uptime_s));
    if (in.age_s > kStaleAfterSeconds) {
      const std::string age =
          in.age_s < 60 ? absl::StrFormat("%ds", static_cast<int>(in.age_s)) : FormatAge(in.age_s);
      absl::StrAppend(&t, "  stale (", age, ")");
    } else {
      absl::StrAppend(&t, "  age ", FormatAge(std::max(in.age_s, 0.0)));
    }
    // Last: the longest part and the one a narrow screen can best do without.
    absl::StrAppend(&t, "  ", Printable(in.endpoint));
  }
  return Truncate(t, static_cast<size_t>(in.width));
}

std::string FooterLine(const LayoutInput& in, bool scrollable) {
  std::vector<std::string> keys = {"q quit",
                                   absl::StrCat("s sort [", std::string(SortKeyName(in.sort.key)),
                                                in.sort.Ascending() ? " asc]" : " desc]"),
                                   "r reverse", in.paused ? "p resume" : "p pause",
                                   in.legend ? "? table" : "? help"};
  if (scrollable) keys.push_back("up/down scroll");
  const std::string counts = in.view == nullptr
                                 ? absl::StrCat("bad ", in.dropped)
                                 : absl::StrCat("seq ", in.view->seq, "  bad ", in.dropped);
  const size_t width = static_cast<size_t>(in.width);
  // Drop key hints from the end until the hints and the counts fit; then the
  // counts; then cut.
  for (bool with_counts : {true, false}) {
    for (size_t n = keys.size(); n >= 2; --n) {
      std::string left = keys[0];
      for (size_t i = 1; i < n; ++i) absl::StrAppend(&left, "  ", keys[i]);
      if (!with_counts && left.size() <= width) return left;
      if (with_counts && left.size() + 2 + counts.size() <= width) {
        return left + std::string(width - left.size() - counts.size(), ' ') + counts;
      }
    }
  }
  return Truncate(absl::StrCat(keys[0], "  ", keys[1]), width);
}

// "guar resnet50 16.0 GiB (28s left)"; "whole GPU" for a job that asked no
// memory quota; a gang's GPUs after its memory.
std::string ReservationNote(const ReservationView& r) {
  std::string note = r.priority == Priority::kGuaranteed ? "guar" : "opp";
  if (!r.kind.empty()) absl::StrAppend(&note, " ", Printable(r.kind));
  absl::StrAppend(&note, " ", r.mem_bytes == 0 ? "whole GPU" : FormatBytes(r.mem_bytes));
  if (r.gpus.size() > 1) absl::StrAppend(&note, ", gang ", absl::StrJoin(r.gpus, ","));
  return absl::StrCat(note, " (", FormatAge(std::max(r.expires_in_s, 0.0)), " left)");
}

// The line under a GPU's for the dry runs' placements that hold it.
std::string ReservationLine(const GpuView& g) {
  std::vector<std::string> notes;
  for (const ReservationView& r : g.reservations) notes.push_back(ReservationNote(r));
  const bool one = notes.size() == 1;
  return absl::StrCat("  reserved for ", one ? "a job" : absl::StrCat(notes.size(), " jobs"),
                      one ? " on its way: " : " on their way: ", absl::StrJoin(notes, "; "));
}

// "  loop: hold: calming, worst 0.64 of target (raise under 0.70, aim 0.80)":
// the control loop's last decision here.
std::string LoopLine(const LoopView& loop) {
  std::string line = absl::StrCat("  loop: ", Printable(loop.action));
  if (Known(loop.worst_ratio)) {
    absl::StrAppend(&line, absl::StrFormat(", worst %.2f of target", loop.worst_ratio));
  }
  if (Known(loop.calm_below) && Known(loop.aim)) {
    absl::StrAppend(&line,
                    absl::StrFormat(" (raise under %.2f, aim %.2f)", loop.calm_below, loop.aim));
  }
  return line;
}

std::vector<Line> Body(const LayoutInput& in, const std::vector<PlacedColumn>& columns) {
  std::vector<Line> body;
  const size_t width = static_cast<size_t>(in.width);
  if (in.legend) {
    for (const std::string& l : LegendLines()) {
      body.push_back({LineStyle::kNote, Truncate(l, width)});
    }
    return body;
  }
  if (in.view == nullptr) {
    body.push_back({LineStyle::kNote,
                    Truncate(absl::StrCat("no snapshot yet: is iashim-coordinator publishing on ",
                                          Printable(in.endpoint), "?"),
                             width)});
    return body;
  }
  if (in.view->gpus.empty()) {
    body.push_back({LineStyle::kNote, Truncate("the coordinator knows no GPUs", width)});
    return body;
  }
  for (const GpuView& g : in.view->gpus) {
    body.push_back({LineStyle::kGpu, GpuLine(g, in.width)});
    if (!g.reservations.empty()) {
      body.push_back({LineStyle::kNote, Truncate(ReservationLine(g), width)});
    }
    if (g.loop) body.push_back({LineStyle::kNote, Truncate(LoopLine(*g.loop), width)});
    if (g.jobs.empty()) {
      const std::string note =
          !g.gangs_listed_elsewhere.empty()
              ? "  (gang " + Printable(absl::StrJoin(g.gangs_listed_elsewhere, ", gang ")) + ")"
          : g.hidden_ended > 0 ? "  (no running jobs)"
                               : "  (no jobs)";
      body.push_back({LineStyle::kNote, Truncate(note, width)});
      continue;
    }
    for (const JobView* j : SortedJobs(g.jobs, in.sort)) {
      std::vector<std::string> cells;
      for (const PlacedColumn& c : columns) cells.push_back(Cell(g, *j, c.column));
      const LineStyle style = !j->connected     ? LineStyle::kJobDisconnected
                              : j->OverTarget() ? LineStyle::kJobOverTarget
                                                : LineStyle::kJob;
      body.push_back({style, Truncate(JoinCells(columns, cells), width)});
    }
  }
  return body;
}

}  // namespace

SortKey NextSortKey(SortKey key) {
  switch (key) {
    case SortKey::kJob:
      return SortKey::kShare;
    case SortKey::kShare:
      return SortKey::kKernels;
    case SortKey::kKernels:
      return SortKey::kSlowdown;
    case SortKey::kSlowdown:
      return SortKey::kMemory;
    case SortKey::kMemory:
      return SortKey::kJob;
  }
  return SortKey::kJob;
}

std::string_view SortKeyName(SortKey key) {
  switch (key) {
    case SortKey::kJob:
      return "job";
    case SortKey::kShare:
      return "share";
    case SortKey::kKernels:
      return "kernels/s";
    case SortKey::kSlowdown:
      return "slowdown";
    case SortKey::kMemory:
      return "memory";
  }
  return "?";
}

std::vector<const JobView*> SortedJobs(const std::vector<JobView>& jobs, const SortState& sort) {
  std::vector<const JobView*> out;
  out.reserve(jobs.size());
  for (const JobView& j : jobs) out.push_back(&j);
  const bool ascending = sort.Ascending();
  std::stable_sort(out.begin(), out.end(), [&](const JobView* a, const JobView* b) {
    if (sort.key == SortKey::kJob) {
      if (a->job != b->job) return ascending ? a->job < b->job : a->job > b->job;
      return a->pid < b->pid;
    }
    const double va = SortValue(*a, sort.key);
    const double vb = SortValue(*b, sort.key);
    if (va != vb) return ascending ? va < vb : va > vb;
    if (a->job != b->job) return a->job < b->job;
    return a->pid < b->pid;
  });
  return out;
}

std::vector<PlacedColumn> FitColumns(int width, size_t longest_job) {
  std::vector<PlacedColumn> fixed;
  for (const ColumnSpec& s : kSpecs) {
    if (s.width > 0) fixed.push_back({s.column, s.width});
  }
  // Room the fixed columns take, with the space in front of each.
  auto fixed_width = [&fixed] {
    int w = 0;
    for (const PlacedColumn& c : fixed) w += c.width + 1;
    return w;
  };
  while (!fixed.empty() && kJobMin + fixed_width() > width) {
    auto first_to_drop = std::min_element(
        fixed.begin(), fixed.end(), [](const PlacedColumn& a, const PlacedColumn& b) {
          return Spec(a.column).drop_rank < Spec(b.column).drop_rank;
        });
    fixed.erase(first_to_drop);
  }
  const int job_ideal =
      std::clamp(static_cast<int>(std::min<size_t>(longest_job, kJobMax)), 4, kJobMax);
  // BASE, then RUN, only where JOB keeps its full width: knowing which job a
  // row is matters more than where its baseline came from, or than the run's
  // slowdown beside the current one.
  for (Column optional : {Column::kBaseline, Column::kRun}) {
    if (width - fixed_width() < job_ideal) {
      std::erase_if(fixed, [optional](const PlacedColumn& c) { return c.column == optional; });
    }
  }
  const int job_width = std::max(0, std::min(job_ideal, width - fixed_width()));
  std::vector<PlacedColumn> out = {{Column::kJob, job_width}};
  out.insert(out.end(), fixed.begin(), fixed.end());
  const int left_over = width - job_width - fixed_width();
  if (left_over >= 1 + kCommandMin) out.push_back({Column::kCommand, left_over - 1});
  return out;
}

Layout LayOut(const LayoutInput& in) {
  Layout out;
  if (in.width <= 0 || in.height <= 0) return out;
  size_t longest_job = 0;
  if (in.view != nullptr) {
    for (const GpuView& g : in.view->gpus) {
      for (const JobView& j : g.jobs) {
        longest_job = std::max(longest_job, Printable(j.job).size() + GangNote(j).size());
      }
    }
  }
  const std::vector<PlacedColumn> columns = FitColumns(in.width, longest_job);

  // The title always; then the column headers, then the footer, as height allows.
  const bool show_columns = in.height >= 3;
  const bool show_footer = in.height >= 4;
  const int rows = in.height - 1 - (show_columns ? 1 : 0) - (show_footer ? 1 : 0);

  const std::vector<Line> body = Body(in, columns);
  const int body_size = static_cast<int>(body.size());
  // When it does not fit, the last row says where we are (with two rows or
  // more: with one, the body line matters more).
  const bool overflow = body_size > rows;
  const int visible = overflow && rows >= 2 ? rows - 1 : rows;
  out.max_scroll = overflow ? body_size - visible : 0;
  out.page = std::max(visible, 0);
  const int first = std::clamp(in.scroll, 0, out.max_scroll);

  out.lines.push_back({LineStyle::kTitle, TitleLine(in)});
  if (show_columns) {
    out.lines.push_back({LineStyle::kColumns,
                         Truncate(HeaderLine(columns, in.sort), static_cast<size_t>(in.width))});
  }
  for (int i = first; i < std::min(body_size, first + visible); ++i) out.lines.push_back(body[i]);
  if (overflow && rows >= 2) {
    out.lines.push_back(
        {LineStyle::kNote, Truncate(absl::StrFormat("-- lines %d-%d of %d, up/down to scroll --",
                                                    first + 1, first + visible, body_size),
                                    static_cast<size_t>(in.width))});
  }
  if (show_footer) {
    // The footer sits on the last row even when the body is short.
    while (static_cast<int>(out.lines.size()) < in.height - 1) {
      out.lines.push_back({LineStyle::kNote, ""});
    }
    out.lines.push_back({LineStyle::kFooter, FooterLine(in, out.max_scroll > 0)});
  }
  return out;
}

}  // namespace iashim::top
