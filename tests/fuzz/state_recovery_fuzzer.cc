// Recovery of the coordinator's state from the bytes of its two files
// (coordinator/state/recovery.h, frame.h): the input is a snapshot and a
// journal (fuzz_input.h SplitTwo). Whatever is recovered must survive being
// written as a snapshot and recovered again, and the journal's valid end
// must lie within the journal.
#include <cstdint>

#include "coordinator/state/recovery.h"
#include "coordinator/state/snapshot.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iashim;
  constexpr size_t kMaxObservations = 16;
  const auto [snapshot, journal] = fuzz::SplitTwo(data, size);
  const state::Recovered r = state::Recover(snapshot, journal, kMaxObservations);
  if (r.journal_valid_end > journal.size()) fuzz::Fail("journal valid end past its end");
  if (r.state.observations.size() > kMaxObservations) fuzz::Fail("observations over the cap");
  (void)r.report.ToString();
  const std::string rewritten = state::SerializeSnapshot(r.state, r.last_seq);
  const state::Recovered again = state::Recover(rewritten, "", kMaxObservations);
  if (!again.report.clean()) fuzz::Fail("a rewritten snapshot does not recover cleanly");
  if (!(again.state == r.state)) fuzz::Fail("a rewritten snapshot recovers another state");
  if (again.last_seq != r.last_seq) fuzz::Fail("a rewritten snapshot changes last_seq");
  return 0;
}
