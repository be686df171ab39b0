#include "coordinator/state/record_codec.h"

#include <limits>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "coordinator/state/limits.h"
#include "coordinator/state/validate.h"
#include "flatbuffers/flatbuffers.h"
#include "gtest/gtest.h"
#include "schemas/state_generated.h"
#include "tests/coordinator/state/test_util.h"

namespace iashim::state {
namespace {

using testing::SampleBaseline;
using testing::SampleJob;
using testing::SampleObservation;

std::vector<Mutation> OneOfEachKind() {
  return {SampleJob(3),
          JobRemoval{"job-3"},
          SampleBaseline(4),
          SampleObservation(5),
          BudgetSeqUpdate{~uint64_t{0}},
          KvPut{"gpu/node1/0", std::string("\0\x01\xFFshare", 8)},
          KvRemoval{"gpu/node1/0"}};
}

TEST(RecordCodecTest, EveryKindRoundTrips) {
  for (const Mutation& m : OneOfEachKind()) {
    absl::StatusOr<Record> r = DecodeRecord(EncodeRecord(42, m));
    ASSERT_TRUE(r.ok()) << r.status() << " kind " << m.index();
    EXPECT_EQ(r->seq, 42u);
    ASSERT_TRUE(std::holds_alternative<Mutation>(r->body));
    EXPECT_EQ(std::get<Mutation>(r->body), m) << "kind " << m.index();
  }
}

TEST(RecordCodecTest, DefaultsAndLimitSizedValuesRoundTrip) {
  JobRecord job;
  job.job.assign(kMaxNameBytes, 'j');
  job.command.assign(kMaxCommandBytes, 'c');
  KvPut big{std::string(kMaxNameBytes, 'k'), std::string(kMaxValueBytes, 'v')};
  for (const Mutation& m : std::vector<Mutation>{job, big, BaselineRecord{}}) {
    absl::StatusOr<Record> r = DecodeRecord(EncodeRecord(1, m));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(std::get<Mutation>(r->body), m);
  }
}

TEST(RecordCodecTest, BatchIdsRoundTripAndAreBounded) {
  JobRecord job = SampleJob(7);
  job.batch_system = "slurm";
  job.batch_job = "1234";
  job.batch_step = "batch";
  job.batch_task = 65535;
  absl::StatusOr<Record> r = DecodeRecord(EncodeRecord(1, job));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(std::get<Mutation>(r->body), Mutation(job));

  // A record without batch fields (as written before they existed) reads as none.
  const JobRecord plain = SampleJob(8);
  r = DecodeRecord(EncodeRecord(1, plain));
  ASSERT_TRUE(r.ok()) << r.status();
  const JobRecord& read = std::get<JobRecord>(std::get<Mutation>(r->body));
  EXPECT_EQ(read.batch_system, "");
  EXPECT_EQ(read.batch_task, -1);

  for (const int task : {-2, 65536}) {
    JobRecord bad = job;
    bad.batch_task = task;
    EXPECT_TRUE(absl::IsDataLoss(DecodeRecord(EncodeRecord(1, bad)).status())) << task;
  }
  JobRecord long_step = job;
  long_step.batch_step.assign(kMaxNameBytes + 1, 's');
  EXPECT_TRUE(absl::IsDataLoss(DecodeRecord(EncodeRecord(1, long_step)).status()));
}

TEST(RecordCodecTest, AGangsGpusRoundTripAndAreChecked) {
  JobRecord job = SampleJob(9);
  job.gpu_host = "node1";
  job.gpu_index = 2;
  job.gang_gpus = {2, 3, 0, 1};
  absl::StatusOr<Record> r = DecodeRecord(EncodeRecord(1, job));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(std::get<Mutation>(r->body), Mutation(job));

  // A record written before gangs reads as a one-GPU job.
  r = DecodeRecord(EncodeRecord(1, SampleJob(10)));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(std::get<JobRecord>(std::get<Mutation>(r->body)).gang_gpus.empty());

  JobRecord wrong_first = job;
  wrong_first.gang_gpus = {3, 2};
  JobRecord twice = job;
  twice.gang_gpus = {2, 3, 3};
  JobRecord out_of_range = job;
  out_of_range.gang_gpus = {2, 256};
  JobRecord too_many = job;
  too_many.gang_gpus.clear();
  for (int i = 0; i <= static_cast<int>(kMaxGangGpus); ++i) too_many.gang_gpus.push_back((i + 2) % 256);
  for (const JobRecord& bad : {wrong_first, twice, out_of_range, too_many}) {
    EXPECT_TRUE(absl::IsDataLoss(DecodeRecord(EncodeRecord(1, bad)).status()))
        << bad.gang_gpus.size();
  }
}

TEST(RecordCodecTest, SnapshotHeaderRoundTrips) {
  absl::StatusOr<Record> r = DecodeRecord(EncodeSnapshotHeader({.last_seq = 77, .records = 9}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->seq, 0u);
  ASSERT_TRUE(std::holds_alternative<SnapshotHeader>(r->body));
  EXPECT_EQ(std::get<SnapshotHeader>(r->body), (SnapshotHeader{77, 9}));
}

// The encoder does not check limits (the store does, before encoding); the
// decoder must, since the bytes may come from anywhere.
TEST(RecordCodecTest, RefusesRecordsOverTheLimits) {
  JobRecord long_id = SampleJob(1);
  long_id.job = std::string(kMaxNameBytes + 1, 'j');
  JobRecord no_id = SampleJob(1);
  no_id.job.clear();
  JobRecord bad_priority = SampleJob(1);
  bad_priority.priority = static_cast<Priority>(7);
  ObservationRecord long_type = SampleObservation(1);
  long_type.gpu_type = std::string(kMaxNameBytes + 1, 'g');
  for (const Mutation& m : std::vector<Mutation>{long_id, no_id, bad_priority, long_type,
                                                 KvPut{"", "x"}, KvRemoval{""}}) {
    absl::StatusOr<Record> r = DecodeRecord(EncodeRecord(1, m));
    EXPECT_TRUE(absl::IsDataLoss(r.status())) << r.status() << " kind " << m.index();
  }
}

std::string BuildRecord(disk::Version version, disk::Body type, bool with_body) {
  flatbuffers::FlatBufferBuilder b;
  flatbuffers::Offset<void> body;
  if (with_body) body = disk::CreateBudgetSeq(b, 5).Union();
  b.Finish(disk::CreateRecord(b, version, 1, type, body));
  return std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
}

TEST(RecordCodecTest, RefusesOtherVersionsUnknownKindsAndMissingBodies) {
  EXPECT_TRUE(DecodeRecord(BuildRecord(disk::Version::Current, disk::Body::BudgetSeq, true)).ok());
  const struct {
    std::string bytes;
    std::string why;
  } cases[] = {
      {BuildRecord(static_cast<disk::Version>(2), disk::Body::BudgetSeq, true), "version 2"},
      {BuildRecord(disk::Version::Current, static_cast<disk::Body>(99), true), "kind 99"},
      {BuildRecord(disk::Version::Current, disk::Body::NONE, false), "without a body"},
      {BuildRecord(disk::Version::Current, disk::Body::BudgetSeq, false), "without a body"},
  };
  for (const auto& c : cases) {
    absl::StatusOr<Record> r = DecodeRecord(c.bytes);
    EXPECT_TRUE(absl::IsDataLoss(r.status())) << c.why;
    EXPECT_NE(r.status().message().find(c.why), std::string::npos) << r.status();
  }
}

// Found by tests/fuzz (state_record): a record holding NaN decoded, and NaN
// in a baseline, share or slowdown would poison everything computed from it.
// Non-finite numbers are refused on write and dropped as corrupt on read.
TEST(RecordCodecTest, NonFiniteNumbersAreRefused) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  BaselineRecord baseline = SampleBaseline(4);
  baseline.iteration_ns = nan;
  ObservationRecord observation = SampleObservation(5);
  observation.slowdown_b = -inf;
  JobRecord job = SampleJob(3);
  job.share = inf;
  JobRecord target = SampleJob(3);
  target.slowdown_target = nan;
  for (const Mutation& m : {Mutation(baseline), Mutation(observation), Mutation(job),
                            Mutation(target)}) {
    const absl::Status v = Validate(m);
    EXPECT_TRUE(absl::IsInvalidArgument(v)) << "kind " << m.index() << ": " << v;
    EXPECT_NE(v.message().find("not a finite number"), std::string::npos) << v;
    absl::StatusOr<Record> r = DecodeRecord(EncodeRecord(1, m));
    EXPECT_TRUE(absl::IsDataLoss(r.status())) << "kind " << m.index() << ": " << r.status();
  }
}

// Whatever the bytes, decoding answers (an error or a valid record) and
// never reads out of bounds; the sanitizer builds check the latter.
TEST(RecordCodecTest, SurvivesGarbageAndTruncation) {
  const std::string good = EncodeRecord(9, SampleJob(9));
  const Mutation original = SampleJob(9);
  for (size_t cut = 0; cut < good.size(); ++cut) {
    // Cutting only trailing padding leaves a valid buffer; anything more must fail.
    absl::StatusOr<Record> r = DecodeRecord(good.substr(0, cut));
    if (r.ok()) {
      EXPECT_EQ(std::get<Mutation>(r->body), original) << cut;
    }
  }
  std::mt19937 rng(1234);
  for (int round = 0; round < 20000; ++round) {
    std::string bytes = good;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f)
      bytes[rng() % bytes.size()] ^= static_cast<char>(1 + rng() % 255);
    absl::StatusOr<Record> r = DecodeRecord(bytes);
    if (r.ok() && std::holds_alternative<Mutation>(r->body)) {
      EXPECT_TRUE(Validate(std::get<Mutation>(r->body)).ok());
    }
  }
  for (int round = 0; round < 2000; ++round) {
    std::string bytes(rng() % 200, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    (void)DecodeRecord(bytes).ok();
  }
}

}  // namespace
}  // namespace iashim::state
