#include "coordinator/state/apply.h"

#include <algorithm>

namespace iashim::state {
namespace {

struct Applier {
  size_t max_observations;
  State* state;

  void operator()(const JobRecord& j) const { state->jobs[j.job] = j; }
  void operator()(const JobRemoval& r) const { state->jobs.erase(r.job); }
  void operator()(const BaselineRecord& b) const { state->baselines[b.fingerprint] = b; }
  void operator()(const ObservationRecord& o) const {
    state->observations.push_back(o);
    while (state->observations.size() > max_observations) state->observations.pop_front();
  }
  void operator()(const BudgetSeqUpdate& u) const {
    state->budget_seq = std::max(state->budget_seq, u.seq);
  }
  void operator()(const KvPut& p) const { state->kv[p.key] = p.value; }
  void operator()(const KvRemoval& r) const { state->kv.erase(r.key); }
};

}  // namespace

void Apply(const Mutation& m, size_t max_observations, State* state) {
  std::visit(Applier{max_observations, state}, m);
}

}  // namespace iashim::state
