#include "bench/gate/split_mode.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/gate/metrics.h"
#include "bench/gate/table.h"

namespace iashim::gatebench {
namespace {

struct SplitCase {
  double share_a;
  double share_b;
  bool a_syncs_every_kernel;
};

// The requested splits, then the pathological one: A waits for every kernel,
// so it never has work queued that a rate-based throttle could hold back.
constexpr SplitCase kCases[] = {
    {0.3, 0.7, false}, {0.5, 0.5, false}, {0.1, 0.9, false}, {0.3, 0.7, true}};

// Both jobs without a host gap: each alone would keep the GPU busy, so the
// split is decided by the gate, not by idle time.
JobSpec BusyJob(const BenchContext& ctx, const std::string& model) {
  JobSpec spec = ctx.Job(model);
  spec.host_gap_us = 0;
  return spec;
}

std::string Share(double v) { return absl::StrFormat("%g", v); }

void AddSplitRow(Table& table, const std::string& label, const std::string& req_a,
                 const std::string& req_b, double requested, const RunResult& r) {
  const JobResult& a = r.jobs[0];
  const JobResult& b = r.jobs[1];
  // What the shim holds the share against: the device time NVML accounts.
  const double got = SplitOf(a.window.solo_time_ns, b.window.solo_time_ns);
  const double work = SplitOf(a.window.work_ns, b.window.work_ns);
  table.AddRow({label, req_a, req_b, Fixed(got, 3),
                requested > 0 ? absl::StrFormat("%+.1f", ErrorPp(got, requested)) : "-",
                Fixed(work, 3), Fixed(100 * r.busy_fraction, 0), Fixed(a.iters_per_s, 2),
                Fixed(b.iters_per_s, 2)});
}

}  // namespace

absl::StatusOr<std::string> RunSplitMode(const BenchContext& ctx, const ModelPair& pair) {
  const std::string& ma = pair.first;
  const std::string& mb = pair.second;
  Table split({"case", "A share", "B share", "A got", "error (pp)", "A work", "GPU busy %",
               "A it/s", "B it/s"});
  for (const SplitCase& c : kCases) {
    JobSpec a = BusyJob(ctx, ma);
    JobSpec b = BusyJob(ctx, mb);
    a.share = c.share_a;
    b.share = c.share_b;
    a.sync_kernel = c.a_syncs_every_kernel;
    const std::string label = absl::StrCat("split ", Share(c.share_a), "/", Share(c.share_b),
                                           c.a_syncs_every_kernel ? ", A --sync kernel" : "");
    absl::StatusOr<RunResult> r = RunStep(ctx, label, {a, b});
    if (!r.ok()) return r.status();
    AddSplitRow(split, label, Share(c.share_a), Share(c.share_b), c.share_a, *r);
  }

  // The unthrottled shim against no shim at all, on the same busy pair.
  JobSpec bare_a = BusyJob(ctx, ma), bare_b = BusyJob(ctx, mb);
  bare_a.shim = bare_b.shim = false;
  absl::StatusOr<RunResult> bare = RunStep(ctx, "pair without the shim", {bare_a, bare_b});
  if (!bare.ok()) return bare.status();
  JobSpec full_a = BusyJob(ctx, ma), full_b = BusyJob(ctx, mb);
  full_a.share = full_b.share = 1.0;
  absl::StatusOr<RunResult> full = RunStep(ctx, "pair with the shim, share 1/1", {full_a, full_b});
  if (!full.ok()) return full.status();
  AddSplitRow(split, "shim, share 1/1", "1", "1", 0, *full);
  AddSplitRow(split, "no shim", "-", "-", 0, *bare);

  Table cost({"job", "no shim it/s", "shim share 1 it/s", "ratio"});
  const std::string names[2] = {"A " + ma, "B " + mb};
  for (size_t i = 0; i < 2; ++i) {
    const double without = bare->jobs[i].iters_per_s;
    const double with = full->jobs[i].iters_per_s;
    cost.AddRow({names[i], Fixed(without, 2), Fixed(with, 2), Fixed(Ratio(with, without), 3)});
  }

  return absl::StrCat("## split: A = ", ma, ", B = ", mb,
                      ", both --host-gap-us 0 (GPU-time split from simgpu)\n\n", split.Markdown(),
                      "\n## unthrottled shim against no shim (same pair)\n\n", cost.Markdown());
}

}  // namespace iashim::gatebench
