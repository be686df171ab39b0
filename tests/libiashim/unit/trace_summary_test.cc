#include "libiashim/tools/trace_summary.h"

#include <gtest/gtest.h>

namespace iashim {
namespace {

// A trace of `kernel`'s launches; the first `gpu_ns.size()` are sampled.
void AddLaunches(Trace* t, uint32_t kernel, int launches, std::vector<uint64_t> gpu_ns,
                 uint8_t event = 0) {
  for (int i = 0; i < launches; ++i) {
    TraceEvent e;
    e.launch.event = event;
    e.launch.kernel = kernel;
    e.gpu_ns = static_cast<size_t>(i) < gpu_ns.size() ? gpu_ns[i] : 0;
    t->events.push_back(e);
  }
}

Trace Example() {
  Trace t;
  t.kernel_names = {{1, "relu"}, {2, "gemm_tiled"}, {3, "memset_kernel"}};
  AddLaunches(&t, 1, 100, {100, 300});     // mean 200, est 20,000
  AddLaunches(&t, 2, 10, {5000});          // mean 5000, est 50,000
  AddLaunches(&t, 3, 7, {});               // never sampled
  AddLaunches(&t, 0, 4, {}, /*event=*/2);  // syncs: not kernels
  return t;
}

TEST(TraceSummary, SortsByEstimatedGpuTimeUnsampledLast) {
  const std::vector<KernelSummary> rows = SummarizeKernels(Example());
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].kernel, "gemm_tiled");
  EXPECT_EQ(rows[1].kernel, "relu");
  EXPECT_EQ(rows[2].kernel, "memset_kernel");
  EXPECT_EQ(rows[1].MeanGpuNs(), 200u);
  EXPECT_DOUBLE_EQ(*rows[1].EstimatedGpuNs(), 20000);
  EXPECT_FALSE(rows[2].MeanGpuNs().has_value());
  EXPECT_FALSE(rows[2].EstimatedGpuNs().has_value());
}

TEST(TraceSummary, CsvShowsUnsampledAsDashAndTotals) {
  EXPECT_EQ(FormatSummaryCsv(SummarizeKernels(Example())),
            "kernel,launches,sampled,mean_gpu_ns,est_gpu_ns,gpu_pct\n"
            "gemm_tiled,10,1,5000,50000,71.4\n"
            "relu,100,2,200,20000,28.6\n"
            "memset_kernel,7,0,-,-,-\n"
            "(total),117,3,-,70000,100.0\n");
}

TEST(TraceSummary, UnsampledSortByLaunchesThenName) {
  Trace t;
  t.kernel_names = {{1, "b"}, {2, "a"}, {3, "c"}};
  AddLaunches(&t, 1, 5, {});
  AddLaunches(&t, 2, 5, {});
  AddLaunches(&t, 3, 9, {});
  const std::vector<KernelSummary> rows = SummarizeKernels(t);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].kernel, "c");
  EXPECT_EQ(rows[1].kernel, "a");
  EXPECT_EQ(rows[2].kernel, "b");
  // Nothing timed: no total time either.
  EXPECT_NE(FormatSummaryCsv(rows).find("(total),19,0,-,-,-\n"), std::string::npos);
}

TEST(TraceSummary, GraphLaunchesAndQuotedNames) {
  Trace t;
  t.kernel_names = {{1, "void k<int, 2>(float*)"}};
  AddLaunches(&t, 1, 2, {10, 10});
  AddLaunches(&t, 0, 3, {}, /*event=*/1);
  const std::string csv = FormatSummaryCsv(SummarizeKernels(t));
  EXPECT_NE(csv.find("\"void k<int, 2>(float*)\",2,2,10,20,100.0\n"), std::string::npos);
  EXPECT_NE(csv.find("(graph),3,0,-,-,-\n"), std::string::npos);
}

TEST(TraceSummary, EmptyTraceHasHeaderAndZeroTotals) {
  EXPECT_EQ(FormatSummaryCsv(SummarizeKernels(Trace{})),
            "kernel,launches,sampled,mean_gpu_ns,est_gpu_ns,gpu_pct\n(total),0,0,-,-,-\n");
}

}  // namespace
}  // namespace iashim
