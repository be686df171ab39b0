// A daemon on one simulated GPU with a guaranteed job ("guard", kind "gk")
// and, at times, one opportunistic job (the filler) that takes every budget
// sent to it: the closed loop of the control loop, the budgets and a plant
// whose guard iteration time is a known function of the filler's share. For
// tests of what the loop does over tens of seconds, without processes.
#ifndef IASHIM_TESTS_COORDINATOR_DAEMON_GUARD_FILLER_PLANT_H_
#define IASHIM_TESTS_COORDINATOR_DAEMON_GUARD_FILLER_PLANT_H_

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "coordinator/daemon/coordinator.h"
#include "coordinator/policy/simple_placement.h"
#include "schemas/telemetry_generated.h"
#include "tests/coordinator/daemon/daemon_messages.h"

namespace iashim::daemon::testing {

class GuardFillerPlant {
 public:
  // The guard's iteration time in ms next to the filler at `share`, `t_s`
  // seconds into the run. Alone it runs 100 ms iterations.
  using GuardMs = std::function<double(double share, double t_s)>;

  // Places the guard (probes off: its baseline is measured alone, over the
  // first `alone_s` seconds).
  explicit GuardFillerPlant(GuardMs guard_ms, DaemonOptions options = {}, double alone_s = 5)
      : guard_ms_(std::move(guard_ms)) {
    options.probe = false;
    c_ = std::make_unique<Coordinator>(options, Gpus(1), nullptr,
                                       std::make_unique<policy::SimplePlacement>(), 0);
    std::vector<Outgoing> out;
    c_->OnMessage("cli", Bytes(Place({.job = "guard", .kind = "gk"})), 0, kUnix, &out);
    c_->OnMessage("shim-g",
                  Bytes(Hello({.pid = 1, .job = "guard", .token = LastPlaceReply(out).token})), 0,
                  kUnix, &out);
    Run(alone_s);
  }

  // Places an opportunistic job of `kind` next to the guard; its first share.
  double Join(const std::string& job, const std::string& kind) {
    std::vector<Outgoing> out;
    c_->OnMessage("cli",
                  Bytes(Place({.job = job, .priority = wire::Priority::Opportunistic, .kind = kind})),
                  t_, kUnix + t_, &out);
    const PlaceResult r = LastPlaceReply(out);
    EXPECT_TRUE(r.ok) << r.error;
    token_ = r.token;
    filler_ = job;
    share_ = r.share;
    c_->OnMessage("shim-f",
                  Bytes(Hello({.pid = 2, .job = job, .priority = wire::Priority::Opportunistic,
                               .token = r.token})),
                  t_, kUnix + t_, &out);
    return r.share;
  }

  void Leave() {
    std::vector<Outgoing> out;
    c_->OnMessage("cli", Bytes(Release(filler_, token_)), t_, kUnix + t_, &out);
    filler_.clear();
  }

  // `seconds` of 100 ms steps; the filler takes its budgets.
  void Run(double seconds) {
    for (int i = 0; i < int(seconds * 10); ++i, t_ += kTick, ++seq_) {
      std::vector<Outgoing> out;
      const double guard_ms = filler_.empty() ? 100 : guard_ms_(share_, double(t_) / 1e9);
      c_->OnMessage("shim-g",
                    Bytes(Telemetry({.seq = seq_, .start_ns = t_, .iteration_ms = guard_ms})), t_,
                    kUnix + t_, &out);
      if (!filler_.empty()) {
        c_->OnMessage(
            "shim-f",
            Bytes(Telemetry({.seq = seq_, .start_ns = t_, .iteration_ms = 50, .share = share_})),
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

  Coordinator& coordinator() { return *c_; }
  double share() const { return share_; }  // the filler's, in force
  double now_s() const { return double(t_) / 1e9; }

 private:
  GuardMs guard_ms_;
  std::unique_ptr<Coordinator> c_;
  int64_t t_ = 0;
  uint64_t seq_ = 0;
  std::string filler_, token_;
  double share_ = 1.0;
};

}  // namespace iashim::daemon::testing

#endif  // IASHIM_TESTS_COORDINATOR_DAEMON_GUARD_FILLER_PLANT_H_
