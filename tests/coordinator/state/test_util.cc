#include "tests/coordinator/state/test_util.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <variant>

#include "absl/strings/str_cat.h"
#include "coordinator/state/apply.h"
#include "gtest/gtest.h"

namespace iashim::state::testing {

TempDir::TempDir() {
  std::string pattern = ::testing::TempDir() + "iashim_state_XXXXXX";
  char* made = mkdtemp(pattern.data());
  EXPECT_NE(made, nullptr) << "mkdtemp " << pattern;
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::permissions(path_, std::filesystem::perms::owner_all,
                               std::filesystem::perm_options::add, ignored);
  std::filesystem::remove_all(path_, ignored);
}

JobRecord SampleJob(int i) {
  return JobRecord{.job = absl::StrCat("job-", i),
                   .pid = 1000 + i,
                   .host = absl::StrCat("node", i % 3),
                   .command = absl::StrCat("python train.py --seed ", i, std::string(i % 41, 'x')),
                   .priority = i % 2 ? Priority::kOpportunistic : Priority::kGuaranteed,
                   .mem_bytes = (uint64_t{1} << 30) * static_cast<uint64_t>(i % 7 + 1),
                   .gpu_host = i % 5 == 0 ? "" : absl::StrCat("node", i % 3),
                   .gpu_index = i % 5 == 0 ? -1 : i % 8,
                   .slowdown_target = 0.05 * (i % 4),
                   .share = 1.0 / (i % 3 + 1),
                   .fingerprint = 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(i + 1),
                   .registered_unix_ns = int64_t{1'700'000'000'000'000'000} + i,
                   .kind = i % 4 == 0 ? "" : absl::StrCat("model-", i % 4),
                   .token = i % 6 == 0 ? "" : std::string(32, "0123456789abcdef"[i % 16])};
}

BaselineRecord SampleBaseline(int i) {
  return BaselineRecord{.fingerprint = 0xABCDull * static_cast<uint64_t>(i % 13 + 1),
                        .iteration_ns = 1e6 + i,
                        .kernels_per_s = 5000.5 + i,
                        .busy = (i % 10) / 10.0,
                        .samples = static_cast<uint64_t>(i)};
}

ObservationRecord SampleObservation(int i) {
  return ObservationRecord{.gpu_type = i % 2 ? "a100" : "h200-sxm",
                           .fingerprint_a = static_cast<uint64_t>(i),
                           .fingerprint_b = static_cast<uint64_t>(i) * 31,
                           .slowdown_a = 0.01 * i,
                           .slowdown_b = 0.02 * i,
                           .share_a = 0.5,
                           .share_b = 0.25 + (i % 3) * 0.1,
                           .unix_ns = int64_t{1'700'000'000'000'000'000} + 7 * i};
}

Mutation MixedMutation(int i) {
  switch (i % 7) {
    case 0:
      return SampleJob(i);
    case 1:
      return SampleBaseline(i);
    case 2:
      return SampleObservation(i);
    case 3:
      return BudgetSeqUpdate{static_cast<uint64_t>(i) + 1};
    case 4:
      return KvPut{absl::StrCat("gpu/", i % 5), absl::StrCat("ceiling=", i, std::string(1, '\0'))};
    case 5:
      return JobRemoval{SampleJob(i - 5).job};  // put at i - 5
    default:
      return KvRemoval{absl::StrCat("gpu/", (i - 2) % 5)};  // put at i - 2
  }
}

absl::Status ApplyTo(StateStore& store, const Mutation& m) {
  struct Visitor {
    StateStore& s;
    absl::Status operator()(const JobRecord& j) { return s.PutJob(j); }
    absl::Status operator()(const JobRemoval& r) { return s.RemoveJob(r.job); }
    absl::Status operator()(const BaselineRecord& b) { return s.PutBaseline(b); }
    absl::Status operator()(const ObservationRecord& o) { return s.AddObservation(o); }
    absl::Status operator()(const BudgetSeqUpdate& u) { return s.SetBudgetSeq(u.seq); }
    absl::Status operator()(const KvPut& p) { return s.PutKv(p.key, p.value); }
    absl::Status operator()(const KvRemoval& r) { return s.RemoveKv(r.key); }
  };
  return std::visit(Visitor{store}, m);
}

State ExpectedAfter(int n, size_t max_observations) {
  State state;
  for (int i = 0; i < n; ++i) Apply(MixedMutation(i), max_observations, &state);
  return state;
}

State ExpectedFrom(const std::vector<Mutation>& mutations, size_t max_observations) {
  State state;
  for (const Mutation& m : mutations) Apply(m, max_observations, &state);
  return state;
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void WriteBytes(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  EXPECT_TRUE(out.good()) << "writing " << path;
}

}  // namespace iashim::state::testing
