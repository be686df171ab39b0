// iashim_get_stats (include/iashim/iashim.h): what the shim has seen, for the
// process itself and for tests.
#include <algorithm>
#include <cstddef>
#include <cstring>

#include "iashim/iashim.h"
#include "libiashim/src/drainer.h"
#include "libiashim/src/runtime.h"

namespace {

void FillStats(iashim_stats* out) {
  const iashim::ProcessCounters& c = iashim::g_counters;
  out->lookups_dlsym = c.lookups[0].load();
  out->lookups_proc_v1 = c.lookups[1].load();
  out->lookups_proc_v2 = c.lookups[2].load();
  out->lookups_per_thread = c.lookups_per_thread.load();
  out->mem_refused = c.mem_refused.load();
  iashim::Runtime* rt = iashim::ActiveRuntime();
  out->budget_share = 1.0;
  if (rt == nullptr) return;
  out->active = 1;
  out->sample_every = rt->sample_every();
  out->mem_limit = rt->memory().limit();
  for (int d = 0; d < 8; ++d) out->mem_used[d] = rt->memory().used(d);
  const iashim::Budget budget = rt->gate().budget();
  out->budget_share = budget.share;
  out->budget_max_inflight = budget.max_inflight;
  out->budget_priority = budget.priority == iashim::Priority::kOpportunistic ? 1 : 0;
  out->budget_seq = budget.seq;
  out->held_launches = rt->gate().held_launches();
  out->held_ns = rt->gate().held_ns();
  out->collectives_paced = rt->pacer().held();
  out->collectives_paced_ns = rt->pacer().held_ns();
  try {
    if (iashim::Drainer* d = rt->drainer()) {
      const iashim::DrainerTotals t = d->totals(/*drain_first=*/true);
      out->launches = t.launches;
      out->graph_launches = t.graph_launches;
      out->syncs = t.syncs;
      out->records_dropped = t.records_dropped;
      out->samples = t.samples;
      out->telemetry_sent = t.telemetry_sent;
      out->telemetry_dropped = t.telemetry_dropped;
    }
  } catch (...) {
  }
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int iashim_get_stats(iashim_stats* out,
                                                                       size_t size) {
  if (out == nullptr || size < offsetof(iashim_stats, held_ns) + sizeof out->held_ns) return -1;
  iashim_stats all;
  std::memset(&all, 0, sizeof all);
  FillStats(&all);
  std::memcpy(out, &all, std::min(size, sizeof all));
  return 0;
}
