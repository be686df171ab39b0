// Shared by the state store's tests: a scratch directory, sample records, a
// deterministic stream of mixed mutations with its expected State, and file
// byte helpers.
#ifndef IASHIM_TESTS_COORDINATOR_STATE_TEST_UTIL_H_
#define IASHIM_TESTS_COORDINATOR_STATE_TEST_UTIL_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "coordinator/state/mutation.h"
#include "coordinator/state/records.h"
#include "coordinator/state/state_store.h"

namespace iashim::state::testing {

// A fresh directory under the test temp dir, removed with its contents.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Records whose every field depends on `i`, strings of varying length.
JobRecord SampleJob(int i);
BaselineRecord SampleBaseline(int i);
ObservationRecord SampleObservation(int i);

// The i-th of an endless, deterministic mix of every mutation kind (puts,
// removals of earlier puts, rising budget seqs), each one a real change.
Mutation MixedMutation(int i);
// Performs `m` through StateStore's public API.
absl::Status ApplyTo(StateStore& store, const Mutation& m);
// The state after MixedMutation(0 .. n-1) from empty.
State ExpectedAfter(int n, size_t max_observations);
// The state after applying `mutations` in order from empty.
State ExpectedFrom(const std::vector<Mutation>& mutations, size_t max_observations);

std::string ReadBytes(const std::string& path);
void WriteBytes(const std::string& path, const std::string& data);

}  // namespace iashim::state::testing

#endif  // IASHIM_TESTS_COORDINATOR_STATE_TEST_UTIL_H_
