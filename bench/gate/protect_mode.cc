#include "bench/gate/protect_mode.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/gate/metrics.h"
#include "bench/gate/table.h"

namespace iashim::gatebench {
namespace {

constexpr double kOpportunisticShares[] = {1.0, 0.5, 0.25, 0.1};

}  // namespace

absl::StatusOr<std::string> RunProtectMode(const BenchContext& ctx,
                                           const std::vector<ModelPair>& pairs) {
  // Solo first: every fraction below is against the model alone on the GPU,
  // with the shim loaded and unthrottled. Jobs keep their profile's host gap.
  absl::StatusOr<std::vector<SoloRun>> solos = RunSolos(ctx, pairs);
  if (!solos.ok()) return solos.status();
  std::map<std::string, double> solo;
  Table solo_table({"model", "solo it/s", "GPU busy %"});
  for (const SoloRun& s : *solos) {
    solo[s.model] = s.run.jobs[0].iters_per_s;
    solo_table.AddRow(
        {s.model, Fixed(s.run.jobs[0].iters_per_s, 2), Fixed(100 * s.run.busy_fraction, 0)});
  }

  Table table({"pair (guaranteed+opportunistic)", "opp. share", "guaranteed it/s", "of solo",
               "opportunistic it/s", "of solo", "GPU busy %"});
  for (const ModelPair& pair : pairs) {
    for (double share : kOpportunisticShares) {
      const std::string name = absl::StrCat(pair.first, "+", pair.second);
      absl::StatusOr<RunResult> r =
          RunStep(ctx, absl::StrFormat("%s, opportunistic share %g", name, share),
                  ctx.GuaranteedPair(pair, share));
      if (!r.ok()) return r.status();
      const double g = r->jobs[0].iters_per_s;
      const double o = r->jobs[1].iters_per_s;
      table.AddRow({name, absl::StrFormat("%g", share), Fixed(g, 2),
                    Fixed(Ratio(g, solo[pair.first]), 3), Fixed(o, 2),
                    Fixed(Ratio(o, solo[pair.second]), 3), Fixed(100 * r->busy_fraction, 0)});
    }
  }
  return absl::StrCat("## protect: solo throughput (shim loaded, unthrottled)\n\n",
                      solo_table.Markdown(),
                      "\n## protect: guaranteed (share 1) next to opportunistic (share below)\n\n",
                      table.Markdown());
}

}  // namespace iashim::gatebench
