// One change to the State: what a journal record carries. Internal to the
// store; callers use StateStore's methods.
#ifndef IASHIM_COORDINATOR_STATE_MUTATION_H_
#define IASHIM_COORDINATOR_STATE_MUTATION_H_

#include <cstdint>
#include <string>
#include <variant>

#include "coordinator/state/records.h"

namespace iashim::state {

struct JobRemoval {
  std::string job;
  friend bool operator==(const JobRemoval&, const JobRemoval&) = default;
};

struct BudgetSeqUpdate {
  uint64_t seq = 0;
  friend bool operator==(const BudgetSeqUpdate&, const BudgetSeqUpdate&) = default;
};

struct KvPut {
  std::string key;
  std::string value;
  friend bool operator==(const KvPut&, const KvPut&) = default;
};

struct KvRemoval {
  std::string key;
  friend bool operator==(const KvRemoval&, const KvRemoval&) = default;
};

using Mutation = std::variant<JobRecord, JobRemoval, BaselineRecord, ObservationRecord,
                              BudgetSeqUpdate, KvPut, KvRemoval>;

}  // namespace iashim::state

#endif  // IASHIM_COORDINATOR_STATE_MUTATION_H_
