#include "coordinator/top/table_layout.h"

#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "coordinator/top/legend.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/coordinator/top/snapshot_encoder.h"

namespace iashim::top {
namespace {

using test_support::SampleCluster;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

LayoutInput Input(const ClusterView* view, int width = 80, int height = 24) {
  LayoutInput in;
  in.view = view;
  in.endpoint = "tcp://127.0.0.1:5556";
  in.age_s = 0.5;
  in.width = width;
  in.height = height;
  return in;
}

// The job rows of a layout, by style.
std::vector<std::string> JobRows(const Layout& layout) {
  std::vector<std::string> rows;
  for (const Line& l : layout.lines) {
    if (l.style == LineStyle::kJob || l.style == LineStyle::kJobOverTarget ||
        l.style == LineStyle::kJobDisconnected) {
      rows.push_back(l.text);
    }
  }
  return rows;
}

// The first word of each job row: the job names in display order.
std::vector<std::string> JobOrder(const Layout& layout) {
  std::vector<std::string> names;
  for (const std::string& row : JobRows(layout)) names.push_back(row.substr(0, row.find(' ')));
  return names;
}

void ExpectFits(const Layout& layout, int width, int height) {
  EXPECT_LE(static_cast<int>(layout.lines.size()), height) << width << "x" << height;
  for (const Line& l : layout.lines) {
    EXPECT_LE(static_cast<int>(l.text.size()), width) << width << "x" << height << ": " << l.text;
    for (char c : l.text) {
      ASSERT_TRUE(c >= 0x20 && c < 0x7f) << "unprintable in: " << l.text;
    }
  }
}

TEST(LayOut, FullPictureAt80x24) {
  const ClusterView view = SampleCluster();
  const Layout layout = LayOut(Input(&view));
  ExpectFits(layout, 80, 24);
  ASSERT_EQ(layout.lines.size(), 24u);  // the footer sits on the last row
  EXPECT_EQ(layout.lines[0].style, LineStyle::kTitle);
  EXPECT_EQ(layout.lines[0].text,
            "iashim-top  coordinator 0.1.0  up 1h02m  age 0.5s  tcp://127.0.0.1:5556");
  EXPECT_EQ(layout.lines[1].style, LineStyle::kColumns);
  EXPECT_EQ(layout.lines[1].text,
            "JOB^           PID PRIO STATE   SHARE  KERN/S BUSY%  SLOWDN    RUN        MEM");
  EXPECT_EQ(layout.lines[2].style, LineStyle::kGpu);
  EXPECT_EQ(layout.lines[2].text, "node-a:0 NVIDIA H200  busy 87%  mem 33.0/80.0 GiB  3 jobs");
  EXPECT_THAT(
      JobRows(layout),
      ElementsAre("bert-large    1202 guar conn     0.30     800  25.0   +25%!   +12% 12.0/16.0G",
                  "gpt2-opp      1203 opp  conn     0.10   40.0k   7.0       -      -    13.0G/-",
                  "resnet50      1201 guar conn     0.60   12.3k  55.0     +8%    +6%  8.0/16.0G"));
  EXPECT_EQ(layout.lines.back().style, LineStyle::kFooter);
  EXPECT_THAT(layout.lines.back().text, HasSubstr("q quit"));
  EXPECT_THAT(layout.lines.back().text, HasSubstr("s sort [job asc]"));
  EXPECT_THAT(layout.lines.back().text, HasSubstr("seq 17  bad 0"));
  EXPECT_EQ(layout.max_scroll, 0);
}

TEST(LayOut, ReservationsShowUnderTheirGpu) {
  ClusterView view = SampleCluster();
  ReservationView one;
  one.priority = Priority::kGuaranteed;
  one.kind = "resnet50";
  one.mem_bytes = 16ull << 30;
  one.gpus = {0};
  one.expires_in_s = 28;
  ReservationView gang;
  gang.gpus = {0, 1};
  gang.expires_in_s = -3;  // a clock step: never shown as negative
  view.gpus[0].reservations = {one, gang};
  const Layout layout = LayOut(Input(&view, 120));
  EXPECT_EQ(layout.lines[2].style, LineStyle::kGpu);
  EXPECT_EQ(layout.lines[3].style, LineStyle::kNote);
  EXPECT_EQ(layout.lines[3].text,
            "  reserved for 2 jobs on their way: guar resnet50 16.0 GiB (28s left); opp whole "
            "GPU, gang 0,1 (0.0s left)");
  EXPECT_EQ(JobRows(layout).size(), 3u);
  ExpectFits(LayOut(Input(&view, 60)), 60, 24);

  view.gpus[0].reservations = {one};
  EXPECT_EQ(LayOut(Input(&view, 120)).lines[3].text,
            "  reserved for a job on its way: guar resnet50 16.0 GiB (28s left)");
}

// The control loop's last decision is a note under its GPU, after any
// reservations; unknown figures are left out.
TEST(LayOut, TheLoopsDecisionShowsUnderItsGpu) {
  ClusterView view = SampleCluster();
  view.gpus[0].loop = LoopView{"hold: calming", 0.642, 0.7, 0.8};
  Layout layout = LayOut(Input(&view, 120));
  EXPECT_EQ(layout.lines[2].style, LineStyle::kGpu);
  EXPECT_EQ(layout.lines[3].style, LineStyle::kNote);
  EXPECT_EQ(layout.lines[3].text,
            "  loop: hold: calming, worst 0.64 of target (raise under 0.70, aim 0.80)");
  EXPECT_EQ(JobRows(layout).size(), 3u);
  ExpectFits(LayOut(Input(&view, 40)), 40, 24);

  view.gpus[0].loop = LoopView{"hold: slowdown unknown", -1, 0.5, 0.85};
  EXPECT_EQ(LayOut(Input(&view, 120)).lines[3].text,
            "  loop: hold: slowdown unknown (raise under 0.50, aim 0.85)");
}

TEST(LayOut, AGangIsOneRowWithItsGpusRanksAndSlowestRate) {
  ClusterView view;
  GpuView g0, g1;
  g0.id = 0;
  g1.id = 1;
  g0.host = g1.host = "node-a";
  JobView gang;
  gang.job = "ddp";
  gang.pid = 4100;
  gang.connected = true;
  gang.gpus = {0, 1};
  gang.ranks = 2;
  gang.slowest_rank_iteration_ns = 200'000'000;
  g0.jobs.push_back(gang);
  g1.gangs_listed_elsewhere = {"ddp (on node-a:0)"};
  view.gpus = {g0, g1};
  const Layout layout = LayOut(Input(&view, 130));
  const std::vector<std::string> rows = JobRows(layout);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_THAT(rows[0], HasSubstr("ddp [gpu 0,1; 2 ranks, slowest 5.0 it/s]"));
  bool noted = false;
  for (const Line& l : layout.lines) noted |= l.text == "  (gang ddp (on node-a:0))";
  EXPECT_TRUE(noted);
  ExpectFits(LayOut(Input(&view, 80)), 80, 24);
}

TEST(LayOut, RowStylesFlagTroubledJobs) {
  ClusterView view = SampleCluster();
  view.gpus[0].jobs[2].connected = false;
  const Layout layout = LayOut(Input(&view));
  std::vector<LineStyle> styles;
  for (const Line& l : layout.lines) {
    if (l.text.starts_with("bert") || l.text.starts_with("gpt2") || l.text.starts_with("resnet")) {
      styles.push_back(l.style);
    }
  }
  EXPECT_THAT(styles,
              ElementsAre(LineStyle::kJobOverTarget, LineStyle::kJobDisconnected, LineStyle::kJob));
}

TEST(LayOut, SortsByEachKeyBothWays) {
  const ClusterView view = SampleCluster();
  struct Case {
    SortKey key;
    std::vector<std::string> natural;
  };
  const Case cases[] = {
      {SortKey::kJob, {"bert-large", "gpt2-opp", "resnet50"}},
      {SortKey::kShare, {"resnet50", "bert-large", "gpt2-opp"}},
      {SortKey::kKernels, {"gpt2-opp", "resnet50", "bert-large"}},
      {SortKey::kSlowdown, {"bert-large", "resnet50", "gpt2-opp"}},  // unknown last
      {SortKey::kMemory, {"gpt2-opp", "bert-large", "resnet50"}},
  };
  for (const Case& c : cases) {
    LayoutInput in = Input(&view);
    in.sort.key = c.key;
    EXPECT_EQ(JobOrder(LayOut(in)), c.natural) << SortKeyName(c.key);
    in.sort.reversed = true;
    const std::vector<std::string> reversed(c.natural.rbegin(), c.natural.rend());
    EXPECT_EQ(JobOrder(LayOut(in)), reversed) << SortKeyName(c.key) << " reversed";
  }
}

TEST(LayOut, SortMarkFollowsTheKey) {
  const ClusterView view = SampleCluster();
  LayoutInput in = Input(&view);
  EXPECT_THAT(LayOut(in).lines[1].text, HasSubstr("JOB^"));
  in.sort.key = SortKey::kShare;
  Layout layout = LayOut(in);
  EXPECT_THAT(layout.lines[1].text, HasSubstr("SHAREv"));
  EXPECT_THAT(layout.lines[1].text, Not(HasSubstr("JOB^")));
  EXPECT_THAT(layout.lines.back().text, HasSubstr("s sort [share desc]"));
  in.sort.reversed = true;
  EXPECT_THAT(LayOut(in).lines[1].text, HasSubstr("SHARE^"));
  in.sort.key = SortKey::kKernels;
  EXPECT_THAT(LayOut(in).lines[1].text, HasSubstr("KERN/S^"));
  in.sort.key = SortKey::kSlowdown;
  EXPECT_THAT(LayOut(in).lines[1].text, HasSubstr("SLOWDN^"));
  in.sort.key = SortKey::kMemory;
  in.sort.reversed = false;
  EXPECT_THAT(LayOut(in).lines[1].text, HasSubstr("MEMv"));
}

TEST(SortedJobs, TiesKeepAStableOrderByNameThenPid) {
  std::vector<JobView> jobs(3);
  jobs[0].job = "b";
  jobs[0].pid = 2;
  jobs[1].job = "a";
  jobs[1].pid = 9;
  jobs[2].job = "b";
  jobs[2].pid = 1;
  for (bool reversed : {false, true}) {
    const auto sorted = SortedJobs(jobs, SortState{SortKey::kShare, reversed});  // all 1.0
    ASSERT_EQ(sorted.size(), 3u);
    EXPECT_EQ(sorted[0], &jobs[1]);
    EXPECT_EQ(sorted[1], &jobs[2]);
    EXPECT_EQ(sorted[2], &jobs[0]);
  }
}

TEST(SortedJobs, NanSortsAsUnknown) {
  std::vector<JobView> jobs(3);
  jobs[0].job = "nan";
  jobs[0].kernels_per_s = std::numeric_limits<double>::quiet_NaN();
  jobs[1].job = "fast";
  jobs[1].kernels_per_s = 100;
  jobs[2].job = "slow";
  jobs[2].kernels_per_s = 1;
  const auto sorted = SortedJobs(jobs, SortState{SortKey::kKernels, false});
  EXPECT_EQ(sorted[0]->job, "fast");
  EXPECT_EQ(sorted[1]->job, "slow");
  EXPECT_EQ(sorted[2]->job, "nan");
}

TEST(LayOut, LongJobNamesAreCutWithAMark) {
  ClusterView view = SampleCluster();
  view.gpus[0].jobs[0].job = "an-extremely-long-job-name-that-never-ends-at-all";
  const Layout layout = LayOut(Input(&view));
  ExpectFits(layout, 80, 24);
  const std::vector<std::string> rows = JobRows(layout);
  ASSERT_EQ(rows.size(), 3u);
  // JOB takes what the other columns leave of 80: 20 (BASE and RUN give way
  // to it).
  EXPECT_TRUE(rows[0].starts_with("an-extremely-long-j~ ")) << rows[0];
  EXPECT_THAT(layout.lines[1].text, Not(HasSubstr("BASE")));
  EXPECT_THAT(layout.lines[1].text, Not(HasSubstr("RUN")));
  EXPECT_EQ(rows[0].size(), 80u);
  EXPECT_THAT(rows[0], HasSubstr("+8%"));
  EXPECT_THAT(rows[1], HasSubstr("bert-large "));
}

TEST(LayOut, WideTerminalAddsTheCommand) {
  const ClusterView view = SampleCluster();
  const Layout layout = LayOut(Input(&view, 160, 24));
  ExpectFits(layout, 160, 24);
  EXPECT_THAT(layout.lines[1].text, HasSubstr("COMMAND"));
  EXPECT_THAT(JobRows(layout)[2], HasSubstr("python train.py --model resnet50"));
}

TEST(LayOut, NarrowTerminalDropsTheLeastUsefulColumnsFirst) {
  const ClusterView view = SampleCluster();
  Layout layout = LayOut(Input(&view, 60, 24));
  ExpectFits(layout, 60, 24);
  EXPECT_THAT(layout.lines[1].text, Not(HasSubstr("BASE")));
  EXPECT_THAT(layout.lines[1].text, Not(HasSubstr("BUDGET")));
  EXPECT_THAT(layout.lines[1].text, Not(HasSubstr("STATE")));
  EXPECT_THAT(layout.lines[1].text, Not(HasSubstr("PID")));
  EXPECT_THAT(layout.lines[1].text, Not(HasSubstr("RUN")));  // before STATE
  EXPECT_THAT(layout.lines[1].text, HasSubstr("SLOWDN"));
  EXPECT_THAT(layout.lines[1].text, HasSubstr("PRIO"));
  EXPECT_THAT(JobRows(layout)[0], HasSubstr("bert-large"));

  layout = LayOut(Input(&view, 40, 24));
  ExpectFits(layout, 40, 24);
  EXPECT_TRUE(layout.lines[1].text.starts_with("JOB^"));
  EXPECT_THAT(layout.lines[1].text, HasSubstr("SLOWDN"));
  EXPECT_THAT(layout.lines[1].text, HasSubstr("MEM"));
  EXPECT_THAT(JobRows(layout)[0], HasSubstr("bert-large"));
}

TEST(FitColumns, NeverWiderThanAsked) {
  for (int width = 1; width <= 200; ++width) {
    for (size_t longest : {size_t{0}, size_t{8}, size_t{100}}) {
      const std::vector<PlacedColumn> columns = FitColumns(width, longest);
      ASSERT_FALSE(columns.empty());
      EXPECT_EQ(columns[0].column, Column::kJob);
      int total = -1;
      for (const PlacedColumn& c : columns) total += c.width + 1;
      EXPECT_LE(total, width) << width << " " << longest;
    }
  }
}

TEST(LayOut, EveryLineFitsAnySize) {
  ClusterView view = SampleCluster();
  view.gpus.push_back(view.gpus[0]);
  view.gpus[1].id = 1;
  view.gpus[1].name = "NVIDIA A100-SXM4-80GB with a name longer than any screen is wide";
  view.gpus[0].jobs[0].job = std::string(300, 'x');
  for (int width = 1; width <= 130; width += 3) {
    for (int height = 1; height <= 30; ++height) {
      ExpectFits(LayOut(Input(&view, width, height)), width, height);
      ExpectFits(LayOut(Input(nullptr, width, height)), width, height);
    }
  }
  EXPECT_TRUE(LayOut(Input(&view, 0, 24)).lines.empty());
  EXPECT_TRUE(LayOut(Input(&view, 80, 0)).lines.empty());
}

TEST(LayOut, WaitingBeforeTheFirstSnapshot) {
  const Layout layout = LayOut(Input(nullptr));
  ExpectFits(layout, 80, 24);
  EXPECT_EQ(layout.lines[0].text, "iashim-top  waiting for coordinator at tcp://127.0.0.1:5556");
  EXPECT_THAT(layout.lines[2].text, HasSubstr("no snapshot yet"));
  EXPECT_TRUE(JobRows(layout).empty());
}

TEST(LayOut, StaleAfterThreeSeconds) {
  const ClusterView view = SampleCluster();
  LayoutInput in = Input(&view);
  in.age_s = 2.9;
  EXPECT_THAT(LayOut(in).lines[0].text, HasSubstr("age 2.9s"));
  in.age_s = 5.7;
  EXPECT_THAT(LayOut(in).lines[0].text, HasSubstr("stale (5s)"));
  in.age_s = 600;
  EXPECT_THAT(LayOut(in).lines[0].text, HasSubstr("stale (10m)"));
}

TEST(LayOut, PausedShowsInTitleAndFooter) {
  const ClusterView view = SampleCluster();
  LayoutInput in = Input(&view);
  in.paused = true;
  const Layout layout = LayOut(in);
  EXPECT_THAT(layout.lines[0].text, HasSubstr("PAUSED"));
  EXPECT_THAT(layout.lines.back().text, HasSubstr("p resume"));
}

TEST(LayOut, ClusterWithoutGpusOrJobs) {
  ClusterView view = SampleCluster();
  view.gpus[0].jobs.clear();
  Layout layout = LayOut(Input(&view));
  EXPECT_EQ(layout.lines[2].text, "node-a:0 NVIDIA H200  busy 87%  mem 0.0/80.0 GiB  0 jobs");
  EXPECT_EQ(layout.lines[3].text, "  (no jobs)");
  view.gpus.clear();
  layout = LayOut(Input(&view));
  EXPECT_EQ(layout.lines[2].text, "the coordinator knows no GPUs");
}

TEST(LayOut, ShortTerminalScrollsTheBody) {
  ClusterView view = SampleCluster();
  view.gpus[0].jobs.clear();
  for (int i = 0; i < 30; ++i) {
    JobView j;
    j.job = absl::StrCat("job", i < 10 ? "0" : "", i);
    j.connected = true;
    view.gpus[0].jobs.push_back(j);
  }
  LayoutInput in = Input(&view, 80, 12);  // 9 body rows: 8 lines and the position
  Layout layout = LayOut(in);
  ExpectFits(layout, 80, 12);
  EXPECT_EQ(layout.page, 8);
  EXPECT_EQ(layout.max_scroll, 31 - 8);  // the GPU line and 30 jobs
  EXPECT_EQ(layout.lines[10].text, "-- lines 1-8 of 31, up/down to scroll --");
  // At 80 columns the footer has room for "? help", not also the scroll hint.
  EXPECT_THAT(layout.lines.back().text, HasSubstr("? help"));
  LayoutInput wide = in;
  wide.width = 100;
  EXPECT_THAT(LayOut(wide).lines.back().text, HasSubstr("? help  up/down scroll"));
  EXPECT_EQ(JobOrder(layout).front(), "job00");

  in.scroll = 1000;  // clamped to the end
  layout = LayOut(in);
  EXPECT_EQ(JobOrder(layout).back(), "job29");
  EXPECT_EQ(layout.lines[10].text, "-- lines 24-31 of 31, up/down to scroll --");
}

TEST(LayOut, HostileNamesCannotReachTheTerminal) {
  ClusterView view = SampleCluster();
  view.gpus[0].jobs[0].job = "evil\x1b]0;owned\x07";
  view.gpus[0].host = "node\r\n";
  view.coordinator_version = "\x1b[31m";
  LayoutInput in = Input(&view);
  in.endpoint = "ipc:///tmp/\x1b";
  ExpectFits(LayOut(in), 80, 24);
  ExpectFits(LayOut(Input(nullptr)), 80, 24);
}

TEST(LayOut, FooterCountsWhatWasDropped) {
  const ClusterView view = SampleCluster();
  LayoutInput in = Input(&view);
  in.dropped = 12;
  EXPECT_THAT(LayOut(in).lines.back().text, HasSubstr("bad 12"));
  in.width = 30;
  const Layout narrow = LayOut(in);
  EXPECT_LE(narrow.lines.back().text.size(), 30u);
  EXPECT_THAT(narrow.lines.back().text, HasSubstr("q quit"));
}

TEST(LayOut, StateColumnSaysWhereEachJobIs) {
  ClusterView view = SampleCluster();
  view.gpus[0].jobs[1].connected = false;  // bert-large: its shim went away
  view.gpus[0].jobs[2].connected = false;  // gpt2-opp: placed, never started
  view.gpus[0].jobs[2].pid = 0;
  const Layout layout = LayOut(Input(&view));
  EXPECT_THAT(layout.lines[1].text, HasSubstr(" STATE "));
  const std::vector<std::string> rows = JobRows(layout);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_THAT(rows[0], HasSubstr(" disc "));
  EXPECT_THAT(rows[1], HasSubstr(" placed "));
  EXPECT_THAT(rows[2], HasSubstr(" conn "));
}

TEST(LayOut, BusyColumnAddsUpToTheGpuLine) {
  ClusterView view = SampleCluster();
  view.gpus[0].busy = 1.0;
  view.gpus[0].jobs[0].busy = 0.9;  // resnet50
  view.gpus[0].jobs[1].busy = 0.6;  // bert-large
  view.gpus[0].jobs[2].busy = 0.0;  // gpt2-opp
  const Layout layout = LayOut(Input(&view));
  EXPECT_THAT(layout.lines[2].text, HasSubstr("busy 100%"));
  const std::vector<std::string> rows = JobRows(layout);
  EXPECT_THAT(rows[0], HasSubstr(" 40.0 "));  // bert-large
  EXPECT_THAT(rows[1], HasSubstr("  0.0 "));  // gpt2-opp
  EXPECT_THAT(rows[2], HasSubstr(" 60.0 "));  // resnet50
}

TEST(LayOut, CommandShowsTheProgramNotItsDirectory) {
  ClusterView view = SampleCluster();
  view.gpus[0].jobs[0].command =
      "/very/long/path/to/a/build/tree/bench/iashim-fakejob --model resnet50 --seconds 40";
  const Layout layout = LayOut(Input(&view, 150, 24));
  ExpectFits(layout, 150, 24);
  EXPECT_THAT(JobRows(layout)[2], HasSubstr("iashim-fakejob --model resnet50 --seconds 40"));
  EXPECT_THAT(JobRows(layout)[2], Not(HasSubstr("/very")));
  // Cut at the end, with the mark, where the terminal is narrower.
  const Layout narrow = LayOut(Input(&view, 124, 24));
  EXPECT_THAT(JobRows(narrow)[2], HasSubstr("iashim-fakejob --mo"));
  EXPECT_TRUE(JobRows(narrow)[2].ends_with("~")) << JobRows(narrow)[2];
}

TEST(LayOut, JoulesPerIterationAndBoardPowerWhenKnown) {
  ClusterView view = SampleCluster();
  view.gpus[0].power_w = 213.4;
  view.gpus[0].jobs[0].energy_per_iteration_j = 57.34;  // resnet50, the third row
  const Layout layout = LayOut(Input(&view, 150, 24));
  ExpectFits(layout, 150, 24);
  EXPECT_THAT(layout.lines[1].text, HasSubstr("J/IT"));
  EXPECT_THAT(layout.lines[2].text, HasSubstr("busy 87%  213 W  mem"));
  EXPECT_THAT(JobRows(layout)[2], HasSubstr(" 57.3 "));
  EXPECT_THAT(JobRows(layout)[0], HasSubstr("     - "));  // unknown: a dash
  // The first column a narrow terminal gives up.
  EXPECT_THAT(LayOut(Input(&view)).lines[1].text, Not(HasSubstr("J/IT")));
}

TEST(LayOut, GpuLineCountsEndedJobsAndSaysDrained) {
  ClusterView view = SampleCluster();
  view.gpus[0].hidden_ended = 2;
  view.gpus[0].drained = true;
  Layout layout = LayOut(Input(&view));
  EXPECT_EQ(layout.lines[2].text,
            "node-a:0 NVIDIA H200  DRAINED  busy 87%  mem 33.0/80.0 GiB  3 jobs +2 ended");
  view.gpus[0].jobs.clear();
  layout = LayOut(Input(&view));
  EXPECT_EQ(layout.lines[3].text, "  (no running jobs)");
}

TEST(LayOut, ALostNodeAndItsJobsSaySo) {
  ClusterView view = SampleCluster();
  view.gpus[0].node_lost_s = 7;
  for (JobView& j : view.gpus[0].jobs) {
    j.connected = false;
    j.lost = true;
  }
  const Layout layout = LayOut(Input(&view));
  EXPECT_EQ(layout.lines[2].text,
            "node-a:0 NVIDIA H200  NODE LOST  busy 87%  mem 33.0/80.0 GiB  3 jobs");
  size_t lost_rows = 0;
  for (const std::string& row : JobRows(layout)) lost_rows += row.find(" lost ") != std::string::npos;
  EXPECT_EQ(lost_rows, view.gpus[0].jobs.size());
}

TEST(LayOut, LegendReplacesTheTableAndScrolls) {
  const ClusterView view = SampleCluster();
  LayoutInput in = Input(&view);
  EXPECT_THAT(LayOut(in).lines.back().text, HasSubstr("? help"));
  in.legend = true;
  Layout layout = LayOut(in);
  ExpectFits(layout, 80, 24);
  EXPECT_TRUE(JobRows(layout).empty());
  EXPECT_EQ(layout.lines[2].text, LegendLines()[0]);
  EXPECT_THAT(layout.lines.back().text, HasSubstr("? table"));
  EXPECT_GT(layout.max_scroll, 0);  // longer than 24 lines: it scrolls like the table
  in.scroll = layout.max_scroll;
  layout = LayOut(in);
  EXPECT_EQ(layout.lines[layout.lines.size() - 3].text, LegendLines().back());
  // Also before the first snapshot.
  in.view = nullptr;
  in.scroll = 0;
  EXPECT_EQ(LayOut(in).lines[2].text, LegendLines()[0]);
}

}  // namespace
}  // namespace iashim::top
