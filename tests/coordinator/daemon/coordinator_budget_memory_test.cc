// First budgets from what the control loop found (policy/budget_memory.h):
// once the loop has held a guaranteed job next to a throttled co-runner, the
// next co-runner of that kind starts where the loop settled, not at the
// model's estimate; one of another kind starts at the model's estimate
// calibrated by it.
#include <gtest/gtest.h>

#include <memory>

#include "coordinator/daemon/coordinator.h"
#include "coordinator/policy/simple_placement.h"
#include "schemas/telemetry_generated.h"
#include "tests/coordinator/daemon/daemon_messages.h"

namespace iashim::daemon {
namespace {

namespace w = iashim::wire;
using testing::Bytes;
using testing::Gpus;
using testing::Hello;
using testing::kSecond;
using testing::kTick;
using testing::kUnix;
using testing::LastPlaceReply;
using testing::Place;
using testing::PlaceResult;
using testing::ReceivedMessage;
using testing::Telemetry;

// The guaranteed job runs 100 ms iterations alone and 100 * (1 + 0.5 * s) ms
// next to an opportunistic job at share s: a kept fraction of 1 / (1 + 0.5 s),
// a loss of 0.5 / (1 + 0.5 s) per unit share.
double LossPerShare(double s) { return 0.5 / (1 + 0.5 * s); }

class BudgetMemoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DaemonOptions options;
    options.probe = false;  // the baseline is measured alone, first
    c_ = std::make_unique<Coordinator>(options, Gpus(1), nullptr,
                                       std::make_unique<policy::SimplePlacement>(), 0);
    std::vector<Outgoing> out;
    c_->OnMessage("cli", Bytes(Place({.job = "guard", .kind = "gk"})), 0, kUnix, &out);
    c_->OnMessage("shim-g", Bytes(Hello({.pid = 1, .job = "guard", .token = LastPlaceReply(out).token})),
                  0, kUnix, &out);
    Run(5);
  }

  // Places an opportunistic job of `kind` next to the guard; its first share.
  double Join(const std::string& job, const std::string& kind) {
    std::vector<Outgoing> out;
    c_->OnMessage("cli",
                  Bytes(Place({.job = job, .priority = w::Priority::Opportunistic, .kind = kind})),
                  t_, kUnix + t_, &out);
    const PlaceResult r = LastPlaceReply(out);
    EXPECT_TRUE(r.ok) << r.error;
    token_ = r.token;
    filler_ = job;
    share_ = r.share;
    c_->OnMessage("shim-f",
                  Bytes(Hello({.pid = 2, .job = job, .priority = w::Priority::Opportunistic,
                               .token = r.token})),
                  t_, kUnix + t_, &out);
    return r.share;
  }

  void Leave() {
    std::vector<Outgoing> out;
    c_->OnMessage("cli", Bytes(testing::Release(filler_, token_)), t_, kUnix + t_, &out);
    filler_.clear();
  }

  // `seconds` of 100 ms steps; the filler takes its budgets.
  void Run(double seconds) {
    for (int i = 0; i < int(seconds * 10); ++i, t_ += kTick, ++seq_) {
      std::vector<Outgoing> out;
      const double guard_ms = filler_.empty() ? 100 : 100 * (1 + 0.5 * share_);
      c_->OnMessage("shim-g",
                    Bytes(Telemetry({.seq = seq_, .start_ns = t_, .iteration_ms = guard_ms})), t_,
                    kUnix + t_, &out);
      if (!filler_.empty()) {
        c_->OnMessage("shim-f",
                      Bytes(Telemetry(
                          {.seq = seq_, .start_ns = t_, .iteration_ms = 50, .share = share_})),
                      t_, kUnix + t_, &out);
      }
      c_->OnTick(t_, kUnix + t_, &out);
      for (const Outgoing& o : out) {
        const ReceivedMessage m(o.bytes);
        if (o.identity == "shim-f" && m.envelope() && m.envelope()->payload_as_Budget()) {
          share_ = m.envelope()->payload_as_Budget()->share();
        }
      }
    }
  }

  std::unique_ptr<Coordinator> c_;
  int64_t t_ = 0;
  uint64_t seq_ = 0;
  std::string filler_, token_;
  double share_ = 1.0;
};

TEST_F(BudgetMemoryTest, TheNextCoRunnerStartsWhereTheLoopSettled) {
  // Nothing learned: the model's prior (0.68 kept at full speed) gives 0.284.
  const double prior = (1 - 1 / 1.1) / (1 - 0.68);
  EXPECT_NEAR(Join("f1", "fk"), prior, 1e-6);
  Run(60);
  const double settled = share_;
  EXPECT_LT(settled, prior);  // the plant loses more per share than the prior says
  Leave();
  Run(5);
  // The share that holds the guard at its target, from the loss per share
  // at the settled point.
  const double expected = (1 - 1 / 1.1) / LossPerShare(settled);
  EXPECT_NEAR(Join("f2", "fk"), expected, 0.01);
  Leave();
  Run(5);
  // A kind never seen: the model's estimate for it (the prior: no pair was
  // observed unthrottled) scaled by the calibration, which here is the same.
  EXPECT_NEAR(Join("f3", "other"), expected, 0.01);
}

}  // namespace
}  // namespace iashim::daemon
