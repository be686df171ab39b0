// Solo probes applied by the coordinator (coordinator_probe.cc): a guaranteed
// job placed together with an opportunistic one, never alone, still gets a
// baseline and protection; co-runners are always released.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "absl/strings/str_format.h"
#include "common/wire/wire_string.h"
#include "coordinator/daemon/coordinator.h"
#include "coordinator/policy/simple_placement.h"
#include "coordinator/policy/solo_probe.h"
#include "coordinator/state/state_store.h"
#include "schemas/telemetry_generated.h"
#include "tests/coordinator/daemon/daemon_messages.h"
#include "tests/coordinator/daemon/test_state_dir.h"

namespace iashim::daemon {
namespace {

namespace w = iashim::wire;
using testing::Bytes;
using ::testing::Contains;
using testing::Gpus;
using testing::Hello;
using testing::kSecond;
using testing::kTick;
using testing::kUnix;
using testing::LastPlaceReply;
using testing::Place;
using testing::ReceivedMessage;
using testing::Telemetry;

// The share a probe holds co-runners at.
constexpr double kHold = policy::SoloProbeOptions{}.hold_share;
// The filler's first budget: the share the model's prior gives a newcomer
// next to a guaranteed job (1/1.1 allowed of the 0.68 kept at full pace, as
// a budget of the 0.68 of the GPU's time the newcomer takes there).
constexpr double kFirstShare = (1 - 1 / 1.1) / (1 - 0.68) * 0.68;

struct SentBudget {
  int64_t at_ns;
  double share;
  uint32_t ttl_ms;
};

// Two jobs on one GPU, placed together: the guaranteed job runs 100 ms
// iterations alone and 100 * (1 + harm_ * the filler's share) ms beside it
// (harm_ 0.5 unless a test says otherwise).
class ProbeTest : public ::testing::Test {
 protected:
  void SetUp() override { Start(DaemonOptions{}, nullptr); }
  void TearDown() override {
    c_.reset();  // before the store it writes to
    store_.reset();
    if (!state_dir_.empty()) std::filesystem::remove_all(state_dir_);
  }

  // Starts again on a state store in a directory of the test's own (removed
  // in TearDown); null, with a failure, when it cannot be opened.
  state::StateStore* StartWithStore() {
    state_dir_ = FreshTestStateDir("iashim-probe-test");
    auto store = state::StateStore::Open(state_dir_.string());
    EXPECT_TRUE(store.ok()) << store.status();
    if (!store.ok()) return nullptr;
    store_ = *std::move(store);
    Start(DaemonOptions{}, store_.get());
    return store_.get();
  }

  void Start(DaemonOptions options, state::StateStore* store) {
    c_ = std::make_unique<Coordinator>(options, Gpus(1), store,
                                       std::make_unique<policy::SimplePlacement>(), 0);
    std::vector<Outgoing> out;
    c_->OnMessage("cli", Bytes(Place({.job = "guard"})), 0, kUnix, &out);
    const std::string gt = LastPlaceReply(out).token;
    c_->OnMessage("cli", Bytes(Place({.job = "filler", .priority = w::Priority::Opportunistic})), 0,
                  kUnix, &out);
    const std::string ft = LastPlaceReply(out).token;
    c_->OnMessage("shim-g", Bytes(Hello({.pid = 100, .job = "guard", .token = gt})), 0, kUnix,
                  &out);
    c_->OnMessage(
        "shim-f",
        Bytes(Hello(
            {.pid = 200, .job = "filler", .priority = w::Priority::Opportunistic, .token = ft})),
        0, kUnix, &out);
  }

  // Runs `seconds` of 100 ms steps. `obey`: the filler takes its budgets.
  void Run(double seconds, bool obey = true) {
    for (int i = 0; i < int(seconds * 10); ++i, t_ += kTick, ++seq_) {
      std::vector<Outgoing> out;
      const double guard_ms = 100 * (1 + harm_ * filler_share_);
      c_->OnMessage("shim-g",
                    Bytes(Telemetry({.seq = seq_,
                                     .start_ns = t_,
                                     .iteration_ms = guard_ms,
                                     .cpu_wait_ms = guard_cpu_wait_ms_})),
                    t_, kUnix + t_, &out);
      c_->OnMessage("shim-f",
                    Bytes(Telemetry(
                        {.seq = seq_, .start_ns = t_, .iteration_ms = 50, .share = filler_share_})),
                    t_, kUnix + t_, &out);
      c_->OnTick(t_, kUnix + t_, &out);
      for (const Outgoing& o : out) {
        const ReceivedMessage m(o.bytes);
        const w::Envelope* e = m.envelope();
        if (e == nullptr || e->payload_as_Budget() == nullptr) continue;
        EXPECT_EQ(o.identity, "shim-f");
        budgets_.push_back({t_, e->payload_as_Budget()->share(), e->payload_as_Budget()->ttl_ms()});
        if (obey) filler_share_ = e->payload_as_Budget()->share();
      }
    }
  }

  const Job& guard() const { return c_->jobs().at("guard"); }

  // The filler's first budget after the probe's hold began, and the hold's;
  // null when there was none.
  std::pair<const SentBudget*, const SentBudget*> HoldAndRelease() const {
    const auto hold = std::find_if(budgets_.begin(), budgets_.end(),
                                   [](const SentBudget& b) { return b.share == kHold; });
    if (hold == budgets_.end()) return {nullptr, nullptr};
    const auto released =
        std::find_if(hold, budgets_.end(), [](const SentBudget& b) { return b.share > kHold; });
    return {&*hold, released == budgets_.end() ? nullptr : &*released};
  }

  std::unique_ptr<Coordinator> c_;
  std::unique_ptr<state::StateStore> store_;  // StartWithStore
  std::filesystem::path state_dir_;
  int64_t t_ = 0;
  uint64_t seq_ = 0;
  double filler_share_ = 1.0;
  double harm_ = 0.5;
  double guard_cpu_wait_ms_ = 0;  // of each 100 ms window
  std::vector<SentBudget> budgets_;
};

TEST_F(ProbeTest, AGuaranteedJobThatNeverRanAloneIsProbedThenProtected) {
  Run(20);
  EXPECT_EQ(c_->counters().probes_started, 1u);
  EXPECT_EQ(c_->counters().probes_measured, 1u);
  EXPECT_EQ(guard().profile.baseline_source(), policy::BaselineSource::kProbe);
  // The probe measured the job as if alone (the filler held at 0.1%: 100.05 ms).
  ASSERT_TRUE(guard().profile.baseline_iteration_ns().has_value());
  EXPECT_NEAR(*guard().profile.baseline_iteration_ns(), 100.05e6, 0.1e6);
  // Budgets before the hold: the model's prior for a newcomer (kFirstShare).
  const double first = kFirstShare;
  const auto hold = std::find_if(budgets_.begin(), budgets_.end(),
                                 [](const SentBudget& b) { return b.share == kHold; });
  ASSERT_NE(hold, budgets_.end());
  ASSERT_NE(hold, budgets_.begin());
  for (auto b = budgets_.begin(); b != hold; ++b) EXPECT_NEAR(b->share, first, 1e-6);
  // Then the hold, with a TTL that ends it by itself.
  EXPECT_LE(hold->ttl_ms, 8000u);
  EXPECT_GE(hold->at_ns, 2 * kSecond);  // after the job's warm-up
  // Then released (back to its share before the hold), and the control loop
  // takes the filler from there.
  const auto released =
      std::find_if(hold, budgets_.end(), [](const SentBudget& b) { return b.share > kHold; });
  ASSERT_NE(released, budgets_.end());
  EXPECT_NEAR(released->share, first, 1e-6);
  EXPECT_LE(released->at_ns - hold->at_ns, 8 * kSecond);
  EXPECT_LT(filler_share_, 1.0);
  EXPECT_GE(filler_share_, 0.05);
  EXPECT_FALSE(c_->jobs().at("filler").held);
  ASSERT_TRUE(guard().profile.slowdown().has_value());
  EXPECT_LT(*guard().profile.slowdown(), 0.2);
}

// A co-runner far more harmful than the model's prior: the first budget
// (0.193) leaves the job 39% slow until the probe. Released to that budget,
// it would stay so until the loop's cuts; it is released instead to where
// the job's speed before the hold, harm in proportion to the share, puts it
// at the loop's headroom (0.85 of the target), here the least share.
TEST_F(ProbeTest, ACoRunnerTheJobWasMeasuredTooSlowBesideIsReleasedLower) {
  harm_ = 2.0;
  Run(20);
  EXPECT_EQ(c_->counters().probes_measured, 1u);
  const auto [hold, released] = HoldAndRelease();
  ASSERT_NE(hold, nullptr);
  ASSERT_NE(released, nullptr);
  const double first = kFirstShare;
  const double before = 2.0 * first;  // the job's slowdown before the hold
  EXPECT_NEAR(released->share, std::max(0.05, first * 0.85 * 0.1 / before), 1e-6);
  // From then on the job is within its target: no cut had to catch up.
  Run(5);
  ASSERT_TRUE(guard().profile.slowdown().has_value());
  EXPECT_LE(*guard().profile.slowdown(), 0.1);
  // The daemon's log says so, with the figures behind the release (against
  // the baseline the probe measured, the filler's trickle in it).
  const double measured = 100 * (1 + 2.0 * kHold);
  const double logged = 100 * (1 + before) / measured - 1;
  EXPECT_THAT(
      c_->TakeEvents(kUnix),
      Contains(absl::StrFormat(
          "probe of guard: measured alone, %.1f ms an iteration; %.3f slow beside them "
          "before, over its loop's target 0.100: co-runners go back at %.2f of their shares",
          measured, logged, 0.85 * 0.1 / logged)));
}

// The snapshot says what the loop last decided on the GPU: that the probe
// holds the co-runners while it measures, then the controller's own step,
// with the guard's ratio to its target and the band it is judged by.
TEST_F(ProbeTest, TheSnapshotSaysWhatTheLoopLastDecided) {
  auto loop = [&]() -> std::optional<std::string> {
    const std::string bytes = c_->EncodeSnapshot(t_, kUnix + t_);
    const ReceivedMessage m(bytes);
    const w::GpuState* gpu = m.envelope()->payload_as_StateSnapshot()->gpus()->Get(0);
    if (gpu->loop() == nullptr) return std::nullopt;
    const w::LoopState& l = *gpu->loop();
    return absl::StrFormat("%s %.2f %.2f %.2f", iashim::wire::StringOf(l.action()), l.worst_ratio(),
                           l.calm_below(), l.aim());
  };
  EXPECT_EQ(loop(), std::nullopt);  // no tick yet
  bool saw_probe = false;
  while (t_ < 20 * kSecond && !saw_probe) {
    Run(0.1);
    saw_probe = loop().value_or("").rfind("probe holds", 0) == 0;
  }
  EXPECT_TRUE(saw_probe);
  Run(12);
  const std::optional<std::string> after = loop();
  ASSERT_TRUE(after.has_value());
  EXPECT_EQ(after->rfind("probe", 0), std::string::npos) << *after;
  // The guard's worst ratio is known and the band's edges are ratios under 1.
  float ratio = -1, calm = -1, aim = -1;
  char action[64] = {};
  ASSERT_EQ(std::sscanf(after->c_str(), "%63[^0-9-] %f %f %f", action, &ratio, &calm, &aim), 4)
      << *after;
  EXPECT_GE(ratio, 0);
  EXPECT_GT(calm, 0);
  EXPECT_LT(calm, aim);
  EXPECT_LT(aim, 1);
}

TEST_F(ProbeTest, ACoRunnerThatIgnoresTheHoldIsReleasedOnTheDeadlineAndRetriedLater) {
  Run(15, /*obey=*/false);
  EXPECT_EQ(c_->counters().probes_started, 1u);
  EXPECT_EQ(c_->counters().probes_timed_out, 1u);
  EXPECT_EQ(guard().profile.baseline_source(), policy::BaselineSource::kNone);
  // The hold (after the newcomer's first budget), re-sent once a second
  // while not taken, then given back on the deadline.
  const auto hold = std::find_if(budgets_.begin(), budgets_.end(),
                                 [](const SentBudget& b) { return b.share == kHold; });
  ASSERT_NE(hold, budgets_.end());
  const auto resent =
      std::find_if(hold, budgets_.end(), [](const SentBudget& b) { return b.share > kHold; });
  ASSERT_NE(resent, budgets_.end());
  EXPECT_GE(resent - hold, 2);  // re-sent at least once before the deadline
  EXPECT_NEAR(resent->share, kFirstShare, 1e-6);
  EXPECT_LE(resent->at_ns - hold->at_ns, 8 * kSecond + kTick);
  EXPECT_FALSE(c_->jobs().at("filler").held);
  // Not again within the retry wait.
  Run(30, /*obey=*/false);
  EXPECT_EQ(c_->counters().probes_started, 1u);
}

// The host kept the guaranteed job's threads waiting for a CPU (a
// quarter of each window) while the probe measured it: the baseline stands
// in, marked contended, and the probe is tried again later; measured
// uncontended the second time, it is done.
TEST_F(ProbeTest, AProbeContendedForACpuIsRetriedUntilItMeasuresTheJobAlone) {
  guard_cpu_wait_ms_ = 25;
  Run(15);
  EXPECT_EQ(c_->counters().probes_started, 1u);
  EXPECT_EQ(c_->counters().probes_cpu_contended, 1u);
  EXPECT_EQ(c_->counters().probes_measured, 0u);
  EXPECT_TRUE(guard().profile.baseline_iteration_ns().has_value());  // protected meanwhile
  EXPECT_TRUE(guard().profile.baseline_contended());
  EXPECT_FALSE(c_->jobs().at("filler").held);
  guard_cpu_wait_ms_ = 1;
  Run(60);  // retried 60 s after the first attempt ended
  EXPECT_EQ(c_->counters().probes_started, 2u);
  EXPECT_EQ(c_->counters().probes_measured, 1u);
  EXPECT_FALSE(guard().profile.baseline_contended());
  EXPECT_EQ(guard().profile.baseline_source(), policy::BaselineSource::kProbe);
}

// A contended probe still leaves a baseline (the wait taken out), which the
// loop reads the job against until the retry: the co-runners of a job it
// shows over its target beside them go back lower, as after a clean probe.
TEST_F(ProbeTest, AContendedProbeStillReleasesCoRunnersLowerForAJobOverItsTarget) {
  guard_cpu_wait_ms_ = 25;
  harm_ = 2.0;
  Run(15);
  ASSERT_EQ(c_->counters().probes_cpu_contended, 1u);
  const auto [hold, released] = HoldAndRelease();
  ASSERT_NE(hold, nullptr);
  ASSERT_NE(released, nullptr);
  const double first = kFirstShare;
  ASSERT_TRUE(guard().profile.baseline_iteration_ns().has_value());
  const double before = 100e6 * (1 + 2.0 * first) / *guard().profile.baseline_iteration_ns() - 1;
  EXPECT_NEAR(released->share, std::max(0.05, first * 0.85 * 0.1 / before), 1e-3);
  EXPECT_LT(released->share, first);
}

TEST_F(ProbeTest, AProbeBaselineIsSavedForTheNextRunOfTheModel) {
  const state::StateStore* store = StartWithStore();
  ASSERT_NE(store, nullptr);
  Run(40);  // the fingerprint is stable after 30 s of no new kernel
  ASSERT_EQ(store->state().baselines.size(), 1u);
  EXPECT_NEAR(store->state().baselines.begin()->second.iteration_ns, 100.5e6, 1e6);
}

TEST_F(ProbeTest, ABaselineContendedForACpuIsNotSavedForTheNextRun) {
  const state::StateStore* store = StartWithStore();
  ASSERT_NE(store, nullptr);
  guard_cpu_wait_ms_ = 25;
  Run(40);
  EXPECT_TRUE(guard().profile.baseline_contended());
  EXPECT_TRUE(store->state().baselines.empty());
}

TEST_F(ProbeTest, NoProbeWithTheProbeOff) {
  DaemonOptions options;
  options.probe = false;
  Start(options, nullptr);
  Run(10);
  EXPECT_EQ(c_->counters().probes_started, 0u);
  EXPECT_EQ(guard().profile.baseline_source(), policy::BaselineSource::kNone);
}

}  // namespace
}  // namespace iashim::daemon
