// Gavel's measured throughputs (bench/data/gavel/simulation_throughputs.json)
// for one GPU type: every job type's solo speed and, for pairs of jobs run
// together on one GPU, both jobs' speeds. The simulator's ground truth.
//
// A job type is Gavel's key "('<name>', <scale factor>)": the model at one
// batch size, on `scale` GPUs. Throughputs are steps/s of the whole job.
#ifndef IASHIM_COORDINATOR_CLUSTERSIM_GAVEL_THROUGHPUTS_H_
#define IASHIM_COORDINATOR_CLUSTERSIM_GAVEL_THROUGHPUTS_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace iashim::clustersim {

struct JobType {
  std::string name;  // e.g. "ResNet-18 (batch size 16)"
  int scale = 1;     // GPUs

  friend bool operator==(const JobType&, const JobType&) = default;
  friend auto operator<=>(const JobType&, const JobType&) = default;
};

// Both jobs' steps/s when `a` and `b` share one GPU.
struct PairThroughput {
  double a = 0;
  double b = 0;
};

class GavelThroughputs {
 public:
  // Steps/s of `type` alone; nullopt when the file has no such type.
  std::optional<double> Solo(const JobType& type) const;
  // Steps/s of both when co-located; nullopt when the pair was not measured
  // or measured as [0, 0] (it did not fit): "cannot share".
  std::optional<PairThroughput> Pair(const JobType& a, const JobType& b) const;

  // Steps/s of `a` beside both `b` and `c` on one GPU; nullopt when not
  // known. Gavel measured pairs only; simgpu's export (iashim-simgpu-
  // throughputs) adds them under "<gpu> triples".
  std::optional<double> Triple(const JobType& a, const JobType& b, const JobType& c) const;

  // Every type with a solo throughput, in order.
  std::vector<JobType> Types() const;

  // Adds or replaces a type's solo speed / a pair (both orders). For the
  // parser and for tests that build a ground truth by hand.
  void SetSolo(const JobType& type, double steps_per_s);
  void SetPair(const JobType& a, const JobType& b, double a_steps_per_s, double b_steps_per_s);
  // One order only: what the file says under `a`'s key about `b` (the file
  // lists each pair under both jobs; each is read as its own entry).
  void SetOrderedPair(const JobType& a, const JobType& b, PairThroughput steps_per_s);
  // `a`'s steps/s beside `b` and `c` (in either order).
  void SetTriple(const JobType& a, const JobType& b, const JobType& c, double a_steps_per_s);

 private:
  // (a, the lower of b and c, the higher): one key for either order.
  static std::tuple<JobType, JobType, JobType> TripleKey(const JobType& a, const JobType& b,
                                                         const JobType& c);

  std::map<JobType, double> solo_;
  std::map<std::pair<JobType, JobType>, PairThroughput> pairs_;
  std::map<std::tuple<JobType, JobType, JobType>, double> triples_;  // by TripleKey
};

// Parses Gavel's key "('<name>', <k>)" exactly: a quoted non-empty name, a
// comma and one space, a positive integer, no other characters.
absl::StatusOr<JobType> ParseJobTypeKey(std::string_view key);

// Gavel's key for `type`, the inverse of ParseJobTypeKey.
std::string JobTypeKey(const JobType& type);

// Parses the JSON text for `gpu_type` (a top-level key such as "v100").
// Strict: every key must parse, every type needs a finite "null" (solo)
// throughput >= 0 (0: not measured on this GPU type; the type is left out,
// so its jobs are skipped like those of a missing type), every pair is [this, other] of two finite numbers >= 0,
// and [0, 0] (not run together) is the only pair with a zero in it. The
// other GPU types in the file are not read. Errors name the offending key;
// `source` (the file name) prefixes them.
absl::StatusOr<GavelThroughputs> ParseGavelThroughputs(std::string_view json_text,
                                                       std::string_view gpu_type,
                                                       std::string_view source);

absl::StatusOr<GavelThroughputs> ReadGavelThroughputsFile(const std::string& path,
                                                          std::string_view gpu_type);

}  // namespace iashim::clustersim

#endif  // IASHIM_COORDINATOR_CLUSTERSIM_GAVEL_THROUGHPUTS_H_
