#include "coordinator/state/snapshot.h"

#include "coordinator/state/frame.h"
#include "coordinator/state/mutation.h"
#include "coordinator/state/record_codec.h"

namespace iashim::state {

std::string SerializeSnapshot(const State& state, uint64_t last_seq) {
  const uint64_t records =
      state.jobs.size() + state.baselines.size() + state.observations.size() + state.kv.size() + 1;
  std::string out;
  AppendFrame(EncodeSnapshotHeader({last_seq, records}), &out);
  // Most important first: when a damaged snapshot loses its tail, it loses
  // observations (relearned) before jobs (not).
  for (const auto& [id, job] : state.jobs) AppendFrame(EncodeRecord(0, job), &out);
  AppendFrame(EncodeRecord(0, BudgetSeqUpdate{state.budget_seq}), &out);
  for (const auto& [key, value] : state.kv) AppendFrame(EncodeRecord(0, KvPut{key, value}), &out);
  for (const auto& [fp, b] : state.baselines) AppendFrame(EncodeRecord(0, b), &out);
  for (const ObservationRecord& o : state.observations) AppendFrame(EncodeRecord(0, o), &out);
  return out;
}

}  // namespace iashim::state
