// The coordinator's interference model: what it learns from jobs sharing a
// GPU, what it remembers across a restart, and how placement uses it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <optional>

#include "coordinator/daemon/coordinator.h"
#include "schemas/telemetry_generated.h"
#include "tests/coordinator/daemon/daemon_messages.h"
#include "tests/coordinator/daemon/test_state_dir.h"

namespace iashim::daemon {
namespace {

namespace w = iashim::wire;
using testing::Bytes;
using testing::Gpus;
using ::testing::HasSubstr;
using testing::Hello;
using testing::kSecond;
using testing::kTick;
using testing::kUnix;
using testing::LastPlaceReply;
using testing::Place;
using testing::PlaceResult;
using testing::PlaceSpec;
using testing::Telemetry;
using testing::TwoNodes;

// An opportunistic 8 GiB job of `kind` (never throttled, so that what the
// model learns is the pair's own slowdown).
std::string PlaceKind(const std::string& job, const std::string& kind) {
  return Place({.job = job,
                .priority = w::Priority::Opportunistic,
                .mem_bytes = 8ULL << 30,
                .slowdown_target = 0,
                .kind = kind});
}

class CoordinatorInterferenceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshTestStateDir("iashim-interference-test");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<state::StateStore> OpenStore() {
    auto s = state::StateStore::Open(dir_.string());
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? std::move(*s) : nullptr;
  }
  // The daemon's own placement: InterferenceAwarePlacement over its model.
  std::unique_ptr<Coordinator> Make(state::StateStore* store, int64_t now = 0) {
    return std::make_unique<Coordinator>(DaemonOptions{}, Gpus(1), store, nullptr, now);
  }

  // Options under which a job is placed wherever it fits (the share is the
  // point) and a guaranteed job's co-runners are cut, not held for a probe.
  static DaemonOptions PlacesAnywhereUnprobed() {
    DaemonOptions options;
    options.min_gain = -1;
    options.probe = false;
    return options;
  }
  // Stores `n` observations of kinds a and b sharing a GPU unthrottled, at
  // these slowdowns, as an earlier run of the coordinator would have.
  void Record(int n, const std::string& a, const std::string& b, double slowdown_a,
              double slowdown_b) {
    auto store = OpenStore();
    for (int i = 0; i < n; ++i) {
      state::ObservationRecord o;
      o.gpu_type = "v100";
      o.kind_a = a;
      o.kind_b = b;
      o.slowdown_a = slowdown_a;
      o.slowdown_b = slowdown_b;
      o.share_a = o.share_b = 1.0;
      o.unix_ns = kUnix + i;
      ASSERT_TRUE(store->AddObservation(o).ok());
    }
  }

  // Places opportunistic `job` of `kind` on `c` and connects its shim
  // ("shim-<job>", `pid`) at time 0: a job running on the GPU. Its placement,
  // or nothing (and a test failure) if it was refused.
  std::optional<PlaceResult> StartOpportunistic(Coordinator& c, const std::string& job,
                                                const std::string& kind, int32_t pid) {
    c.OnMessage("cli", Bytes(PlaceKind(job, kind)), 0, kUnix, &out_);
    const PlaceResult placed = LastPlaceReply(out_);
    EXPECT_TRUE(placed.ok) << job << ": " << placed.error;
    if (!placed.ok) return std::nullopt;
    c.OnMessage("shim-" + job,
                Bytes(Hello({.pid = pid,
                             .job = job,
                             .priority = w::Priority::Opportunistic,
                             .token = placed.token})),
                0, kUnix, &out_);
    return placed;
  }

  // A coordinator over `gpus` GPUs whose store already holds 20 observations
  // of two "membound" jobs, each keeping 0.58 of its speed beside the other.
  std::unique_ptr<Coordinator> KnowingMemboundPairs(int gpus) {
    Record(20, "membound", "membound", 1 / 0.58 - 1, 1 / 0.58 - 1);
    store_ = OpenStore();
    return std::make_unique<Coordinator>(PlacesAnywhereUnprobed(), Gpus(gpus), store_.get(),
                                         nullptr, 0);
  }

  // Places guaranteed "membound" job "g" (10% target) at `at`: 8 GiB on one
  // GPU, or a gang on exactly `gang_gpus`, as Slurm gives one. The messages
  // sent go to `out`; the reply is returned.
  PlaceResult PlaceGuaranteed(Coordinator& c, int64_t at, std::vector<Outgoing>* out,
                              std::optional<std::vector<int>> gang_gpus = std::nullopt) {
    PlaceSpec spec{.job = "g",
                   .priority = w::Priority::Guaranteed,
                   .mem_bytes = 8ULL << 30,
                   .slowdown_target = 0.10,
                   .kind = "membound"};
    if (gang_gpus) {
      spec.mem_bytes = 0;
      spec.gpus = static_cast<int>(gang_gpus->size());
      spec.allowed_gpus = std::move(gang_gpus);
    }
    c.OnMessage("cli", Bytes(Place(spec)), at, kUnix + at, out);
    return LastPlaceReply(*out);
  }

  // The shares of the budgets `out` sends to `identity`.
  static std::vector<double> BudgetsTo(const std::string& identity,
                                       const std::vector<Outgoing>& out) {
    std::vector<double> shares;
    for (const Outgoing& m : out) {
      const testing::ReceivedMessage r(m.bytes);
      if (m.identity == identity && r.envelope() && r.envelope()->payload_as_Budget()) {
        shares.push_back(r.envelope()->payload_as_Budget()->share());
      }
    }
    return shares;
  }

  std::filesystem::path dir_;
  std::unique_ptr<state::StateStore> store_;
  std::vector<Outgoing> out_;
};

// Two opportunistic jobs (never throttled) share the GPU and each runs at
// half its solo speed: the model learns that pair, and after a restart it
// still knows it, from the observations in the state store.
TEST_F(CoordinatorInterferenceTest, LearnsFromASharedGpuAndRemembersAfterARestart) {
  const policy::JobTraits a{.kind = "resnet50"};
  const policy::JobTraits b{.kind = "lstm"};
  double before = 0;
  {
    auto store = OpenStore();
    auto c = Make(store.get());
    before = c->interference().Predict(a, b).throughput;
    c->OnMessage("cli", Bytes(PlaceKind("ja", "resnet50")), 0, kUnix, &out_);
    const PlaceResult ra = LastPlaceReply(out_);
    ASSERT_TRUE(ra.replied);
    ASSERT_FALSE(ra.token.empty());
    c->OnMessage(
        "shim-a",
        Bytes(Hello(
            {.pid = 100, .job = "ja", .priority = w::Priority::Opportunistic, .token = ra.token})),
        0, kUnix, &out_);
    int64_t t = 0;
    uint64_t seq = 0;
    for (int i = 0; i < 40; ++i, t += kTick) {  // alone: the solo baseline, 100 ms
      c->OnMessage("shim-a", Bytes(Telemetry({.seq = seq++, .start_ns = t, .iteration_ms = 100})),
                   t, kUnix + t, &out_);
      c->OnTick(t, kUnix + t, &out_);
    }
    c->OnMessage("cli", Bytes(PlaceKind("jb", "lstm")), t, kUnix + t, &out_);
    const PlaceResult r = LastPlaceReply(out_);
    ASSERT_TRUE(r.replied);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_FALSE(r.token.empty());
    c->OnMessage(
        "shim-b",
        Bytes(Hello(
            {.pid = 200, .job = "jb", .priority = w::Priority::Opportunistic, .token = r.token})),
        t, kUnix + t, &out_);
    for (int i = 0; i < 300; ++i, t += kTick) {  // together: 200 ms, half speed
      c->OnMessage("shim-a", Bytes(Telemetry({.seq = seq, .start_ns = t, .iteration_ms = 200})), t,
                   kUnix + t, &out_);
      c->OnMessage("shim-b", Bytes(Telemetry({.seq = seq, .start_ns = t, .iteration_ms = 50})), t,
                   kUnix + t, &out_);
      ++seq;
      c->OnTick(t, kUnix + t, &out_);
    }
    EXPECT_GT(c->interference().observations(), 0);
    const double learned = c->interference().Predict(a, b).throughput;
    EXPECT_LT(learned, before);
    EXPECT_LT(learned, 0.62);
  }
  auto store = OpenStore();
  auto c = Make(store.get(), 100 * kSecond);
  EXPECT_GT(c->interference().observations(), 0);
  EXPECT_LT(c->interference().Predict(a, b).throughput, 0.62);
  EXPECT_EQ(c->jobs().at("ja").kind, "resnet50");
}

// Jobs whose kinds are known to cripple each other are not put together: the
// second waits (queued) although memory would fit; a job of a kind known to
// share well with the first is placed next to it.
TEST_F(CoordinatorInterferenceTest, QueuesAJobPredictedToCostMoreThanItGains) {
  {
    auto store = OpenStore();
    for (int i = 0; i < 40; ++i) {
      state::ObservationRecord o;
      o.gpu_type = "v100";
      o.kind_a = "vgg16";
      o.kind_b = i % 2 ? "bert" : "lstm";
      o.slowdown_a = o.slowdown_b = i % 2 ? 3.0 : 0.1;  // bert: a quarter of solo speed
      o.share_a = o.share_b = 1.0;
      o.unix_ns = kUnix + i;
      ASSERT_TRUE(store->AddObservation(o).ok());
    }
  }
  auto store = OpenStore();
  auto c = Make(store.get());
  c->OnMessage("cli", Bytes(PlaceKind("v", "vgg16")), 0, kUnix, &out_);
  ASSERT_TRUE(LastPlaceReply(out_).replied);
  EXPECT_TRUE(LastPlaceReply(out_).ok);
  c->OnMessage("cli", Bytes(PlaceKind("b", "bert")), 0, kUnix, &out_);
  PlaceResult r = LastPlaceReply(out_);
  ASSERT_TRUE(r.replied);
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.queued) << r.error;
  c->OnMessage("cli", Bytes(PlaceKind("l", "lstm")), 0, kUnix, &out_);
  r = LastPlaceReply(out_);
  ASSERT_TRUE(r.replied);
  EXPECT_TRUE(r.ok) << r.error;
}

// Budgets from the model: an opportunistic job joining a guaranteed one starts
// at the share the learned pair says keeps the guaranteed job within its
// target, instead of at full speed until the control loop has cut it; a kind
// never seen next to it starts at the model's estimate for the guaranteed
// kind's partners (between its worst and its best seen).
TEST_F(CoordinatorInterferenceTest, AJobJoinsAGuaranteedOneAtThePredictedProtectiveShare) {
  Record(20, "membound", "membound", 1 / 0.58 - 1, 1 / 0.58 - 1);
  Record(20, "membound", "computebound", 1 / 0.87 - 1, 1 / 0.87 - 1);
  auto store = OpenStore();
  DaemonOptions options;
  options.min_gain = -1;  // placed wherever it fits: the share is the point
  Coordinator c(options, Gpus(1), store.get(), nullptr, 0);
  c.OnMessage("cli", Bytes(Place({.job = "g", .priority = w::Priority::Guaranteed,
                                  .mem_bytes = 8ULL << 30, .slowdown_target = 0.10,
                                  .kind = "membound"})),
              0, kUnix, &out_);
  ASSERT_TRUE(LastPlaceReply(out_).ok);
  // Places an opportunistic job of `kind`, returns its share, releases it.
  const auto share_of = [&](const std::string& job, const std::string& kind) {
    c.OnMessage("cli", Bytes(PlaceKind(job, kind)), 0, kUnix, &out_);
    const PlaceResult r = LastPlaceReply(out_);
    EXPECT_TRUE(r.ok) << job << ": " << r.error;
    c.OnMessage("cli", Bytes(testing::Release(job, r.token)), 0, kUnix, &out_);
    return r.share;
  };
  // Next to a memory-bound job it keeps 0.58: at a pace s of its own (the
  // fraction of its unthrottled speed there) it costs g about s * 0.42, and
  // 1/1.1 = 0.909 allows 0.091: s = 0.22. Unthrottled it keeps 0.58 of its
  // speed too, so it takes 0.58 of the GPU's time (never measured alone: busy
  // counts as 1), and its budget of GPU time is 0.58 * 0.22 = 0.126.
  EXPECT_NEAR(share_of("o-mem", "membound"), (1 - 1 / 1.1) / (1 - 0.58) * 0.58, 0.02);
  // 0.87 each way next to a compute-bound one: s = 0.70, a budget of 0.61.
  EXPECT_NEAR(share_of("o-comp", "computebound"), (1 - 1 / 1.1) / (1 - 0.87) * 0.87, 0.04);
  const double unseen = share_of("o-new", "neverseen");
  EXPECT_GT(unseen, (1 - 1 / 1.1) / (1 - 0.58) * 0.58 + 0.02);
  EXPECT_LT(unseen, (1 - 1 / 1.1) / (1 - 0.87) * 0.87 - 0.04);
}

// The other way round: a guaranteed job placed next to a running
// opportunistic one. With the Place reply, before the guaranteed job's
// process has even started, the opportunistic job is cut to the share the
// learned pair predicts (0.22 here), not halved step by step by the loop
// while the guaranteed job suffers; and it is capped once per guaranteed job
// it meets: the ticks after hold it there (g's slowdown is not known yet),
// and later the loop may raise it past the estimate.
TEST_F(CoordinatorInterferenceTest, AGuaranteedJobPlacedNextToARunningOneCutsItsCoRunnerAtOnce) {
  auto c = KnowingMemboundPairs(1);
  const std::optional<PlaceResult> o = StartOpportunistic(*c, "o", "membound", 1);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->share, 1.0);  // alone: the whole GPU
  std::vector<Outgoing> placing;
  const PlaceResult g = PlaceGuaranteed(*c, kTick, &placing);
  ASSERT_TRUE(g.ok) << g.error;
  const std::vector<double> with_place = BudgetsTo("shim-o", placing);
  ASSERT_EQ(with_place.size(), 1u);
  EXPECT_NEAR(with_place.front(), (1 - 1 / 1.1) / (1 - 0.58) * 0.58, 0.02);
  c->OnMessage("shim-g", Bytes(Hello({.pid = 2, .job = "g", .token = g.token})), kTick, kUnix,
               &out_);
  for (int64_t t = kTick; t <= 2 * kSecond; t += kTick) {
    std::vector<Outgoing> out;
    c->OnTick(t, kUnix + t, &out);
    for (const double share : BudgetsTo("shim-o", out)) EXPECT_DOUBLE_EQ(share, with_place.front());
  }
  EXPECT_DOUBLE_EQ(c->jobs().at("o").sent_share, with_place.front());  // held: g's slowdown unknown
}

// Between a guaranteed job's placement and its shim's Hello (its process
// starting: a second or more under a loaded Slurm node) the loop must not
// take the cut back: the job is on the GPU even before it says so.
TEST_F(CoordinatorInterferenceTest, ACutForAGuaranteedJobHoldsUntilItsShimConnects) {
  auto c = KnowingMemboundPairs(1);
  ASSERT_TRUE(StartOpportunistic(*c, "o", "membound", 1));
  const PlaceResult g = PlaceGuaranteed(*c, kTick, &out_);
  ASSERT_TRUE(g.ok) << g.error;
  const double cut = c->jobs().at("o").sent_share;
  ASSERT_LT(cut, 0.5);
  for (int64_t t = 2 * kTick; t <= 3 * kSecond; t += kTick) {
    c->OnTick(t, kUnix + t, &out_);
    ASSERT_DOUBLE_EQ(c->jobs().at("o").sent_share, cut) << "at " << t / 1e9 << " s";
  }
  c->OnMessage("shim-g", Bytes(Hello({.pid = 2, .job = "g", .token = g.token})),
               3 * kSecond + kTick, kUnix, &out_);
  c->OnTick(3 * kSecond + 2 * kTick, kUnix, &out_);
  EXPECT_DOUBLE_EQ(c->jobs().at("o").sent_share, cut);
}

// The same for a guaranteed gang that Slurm starts on GPUs a job is using:
// the job is cut before the gang's ranks start.
TEST_F(CoordinatorInterferenceTest, AGuaranteedGangPlacedBesideARunningJobCutsItAtOnce) {
  auto c = KnowingMemboundPairs(2);
  ASSERT_TRUE(StartOpportunistic(*c, "o", "membound", 1));
  std::vector<Outgoing> placing;
  const PlaceResult g = PlaceGuaranteed(*c, kTick, &placing, std::vector<int>{0, 1});
  ASSERT_TRUE(g.ok) << g.error;
  const std::vector<double> to_o = BudgetsTo("shim-o", placing);
  ASSERT_EQ(to_o.size(), 1u);
  EXPECT_NEAR(to_o.front(), (1 - 1 / 1.1) / (1 - 0.58) * 0.58, 0.02);
}

// A budget is a share of GPU time, and a co-runner that keeps the GPU busy
// only half the time alone takes half as much of it at full pace: cut for a
// guaranteed job placed next to it, it gets half the budget one that keeps
// the GPU busy would, the same pace. A later job of its kind, not measured
// yet, starts at what its kind was measured to take.
TEST_F(CoordinatorInterferenceTest, ACoRunnerBusyHalfTheTimeAloneIsGivenHalfTheBudget) {
  auto owned = KnowingMemboundPairs(1);
  Coordinator& c = *owned;
  const std::optional<PlaceResult> o = StartOpportunistic(c, "o", "membound", 1);
  ASSERT_TRUE(o);
  // Alone for 5 s, 100 launches of a 0.5 ms kernel every 100 ms: busy 0.5.
  int64_t t = kTick;
  for (uint64_t seq = 0; t <= 5 * kSecond; ++seq, t += kTick) {
    c.OnMessage("shim-o", Bytes(Telemetry({.seq = seq, .start_ns = t - kTick, .kernel_ms = 0.5})),
                t, kUnix + t, &out_);
    c.OnTick(t, kUnix + t, &out_);
  }
  ASSERT_TRUE(c.jobs().at("o").profile.solo_busy().has_value());
  ASSERT_NEAR(*c.jobs().at("o").profile.solo_busy(), 0.5, 0.01);
  ASSERT_TRUE(PlaceGuaranteed(c, t, &out_).ok);
  // The pace that keeps g at 1/1.1 beside a job that leaves it 0.58, and the
  // GPU time o takes at full pace there: 0.58 of its speed, busy 0.5.
  const double pace = (1 - 1 / 1.1) / (1 - 0.58);
  EXPECT_NEAR(c.jobs().at("o").sent_share, pace * 0.58 * 0.5, 0.01);
  // After o, a newcomer of its kind, never measured itself: its kind's 0.5.
  c.OnMessage("cli", Bytes(testing::Release("o", o->token)), t, kUnix + t, &out_);
  ASSERT_FALSE(c.jobs().contains("o"));
  c.OnMessage("cli", Bytes(PlaceKind("o2", "membound")), t, kUnix + t, &out_);
  const PlaceResult o2 = LastPlaceReply(out_);
  ASSERT_TRUE(o2.ok) << o2.error;
  EXPECT_NEAR(o2.share, pace * 0.58 * 0.5, 0.01);
}

// Two co-runners at a pace harm a guaranteed job about twice what one does:
// placed next to two running opportunistic jobs, it has both cut at once to
// the pace that keeps it within target beside both, (1 - 1/1.1) / (1 -
// 0.58^2) = 0.137, not to the 0.216 that would do beside one of them (found
// live: a 1.9 s guaranteed job beside three opportunistic ones ran 64% slower,
// each of them cut as if it were alone), as budgets 0.58 of that (each takes
// 0.58 of the GPU's time at full pace beside g). A third opportunistic job
// placed next to it later starts at that joint share too.
TEST_F(CoordinatorInterferenceTest,
       AGuaranteedJobPlacedNextToTwoRunningOnesCutsThemBothToTheJointShare) {
  auto owned = KnowingMemboundPairs(1);
  Coordinator& c = *owned;
  for (const std::string o : {"o1", "o2"}) {
    const std::optional<PlaceResult> placed =
        StartOpportunistic(c, o, "membound", o == "o1" ? 1 : 2);
    ASSERT_TRUE(placed);
    EXPECT_EQ(placed->share, 1.0);  // no guaranteed job: unthrottled
  }
  const PlaceResult g = PlaceGuaranteed(c, kTick, &out_);
  ASSERT_TRUE(g.ok) << g.error;
  const double joint = (1 - 1 / 1.1) / (1 - 0.58 * 0.58) * 0.58;
  EXPECT_NEAR(c.jobs().at("o1").sent_share, joint, 0.01);
  EXPECT_NEAR(c.jobs().at("o2").sent_share, joint, 0.01);
  c.OnMessage("cli", Bytes(PlaceKind("o3", "membound")), kTick, kUnix, &out_);
  const PlaceResult o3 = LastPlaceReply(out_);
  ASSERT_TRUE(o3.ok) << o3.error;
  // Beside three: at most what keeps g within target beside all three, and
  // no more than the others hold.
  EXPECT_NEAR(o3.share, (1 - 1 / 1.1) / (1 - 0.58 * 0.58 * 0.58) * 0.58, 0.01);
}

// The control loop holds a co-runner at its least share and the guaranteed
// job is still over its target (slowed by something no share reaches), then
// gives the share back (the floor bought nothing) and holds it there while
// the job stays as slow: the model still predicts room there, but the GPU
// takes no further co-runner, and the reply says why (but for the part of a
// Slurm step whose other part runs on another node). Once the job recovers
// and the loop raises the share again, it does.
TEST_F(CoordinatorInterferenceTest, AGpuWhoseLoopHoldsItsCoRunnerAtTheFloorTakesNoMore) {
  DaemonOptions options;
  options.min_gain = -1;  // the model would place it wherever it fits
  options.probe = false;  // the baseline from the job's time alone
  Coordinator c(options, TwoNodes(), nullptr, nullptr, 0);
  c.OnMessage("cli", Bytes(Place({.job = "w", .mem_bytes = 0, .gpu = 1})), 0, kUnix, &out_);
  ASSERT_TRUE(LastPlaceReply(out_).ok) << LastPlaceReply(out_).error;
  c.OnMessage("cli", Bytes(Place({.job = "g", .mem_bytes = 8ULL << 30, .gpu = 0})), 0, kUnix,
              &out_);
  ASSERT_TRUE(LastPlaceReply(out_).ok) << LastPlaceReply(out_).error;
  c.OnMessage("shim-g", Bytes(Hello({.pid = 1, .job = "g", .token = LastPlaceReply(out_).token})),
              0, kUnix, &out_);
  int64_t t = 0;
  uint64_t seq = 0;
  for (; seq < 30; ++seq, t += kTick) {  // alone: 100 ms iterations
    c.OnMessage("shim-g", Bytes(Telemetry({.seq = seq, .start_ns = t, .iteration_ms = 100})), t,
                kUnix + t, &out_);
    c.OnTick(t, kUnix + t, &out_);
  }
  c.OnMessage("cli", Bytes(PlaceKind("o", "")), t, kUnix + t, &out_);
  ASSERT_TRUE(LastPlaceReply(out_).ok) << LastPlaceReply(out_).error;
  c.OnMessage("shim-o",
              Bytes(Hello({.pid = 2,
                           .job = "o",
                           .priority = w::Priority::Opportunistic,
                           .token = LastPlaceReply(out_).token})),
              t, kUnix + t, &out_);
  // g runs `g_ms` iterations for `seconds`, o at the share it was sent (the
  // least it was sent in `least`, the most since then in `given_back`, the
  // times it was sent the floor from above it in `floors`).
  double least = 1;
  double given_back = 0;
  int floors = 0;
  const auto run = [&](double g_ms, int seconds) {
    least = 1;
    given_back = 0;
    floors = 0;
    double last = c.jobs().at("o").sent_share;
    for (int i = 0; i < seconds * 10; ++i, ++seq, t += kTick) {
      const double sent = c.jobs().at("o").sent_share;
      given_back = sent < least ? sent : std::max(given_back, sent);
      least = std::min(least, sent);
      floors += sent <= 0.05 + 1e-9 && last > 0.05 + 1e-9 ? 1 : 0;
      last = sent;
      c.OnMessage("shim-g", Bytes(Telemetry({.seq = seq, .start_ns = t, .iteration_ms = g_ms})), t,
                  kUnix + t, &out_);
      c.OnMessage("shim-o",
                  Bytes(Telemetry({.seq = seq,
                                   .start_ns = t,
                                   .iteration_ms = 50,
                                   .share = c.jobs().at("o").sent_share})),
                  t, kUnix + t, &out_);
      c.OnTick(t, kUnix + t, &out_);
    }
  };
  // Places a third job (opportunistic, 8 GiB): GPU 0 is the only one with room.
  const auto place_third = [&](const std::string& job) {
    c.OnMessage("cli", Bytes(PlaceKind(job, "")), t, kUnix + t, &out_);
    const PlaceResult r = LastPlaceReply(out_);
    if (r.ok) c.OnMessage("cli", Bytes(testing::Release(job, r.token)), t, kUnix + t, &out_);
    return r;
  };
  run(102, 20);  // within target: the loop raises o from its first cap
  EXPECT_GT(c.jobs().at("o").sent_share, 0.06);
  EXPECT_TRUE(place_third("n1").ok);
  // 50% slower whatever o's share: the loop cuts o to its floor, then gives
  // back the share it had before, the floor having bought nothing, and keeps
  // it there though the run's target is lowered meanwhile to repay the run.
  const double before = c.jobs().at("o").sent_share;
  run(150, 30);
  ASSERT_LE(least, 0.05 + 1e-9);
  ASSERT_NEAR(given_back, before, 1e-6);
  EXPECT_EQ(floors, 1);
  PlaceResult r = place_third("n2");
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.queued);
  EXPECT_NE(r.error.find("node1:0 runs jobs g, o, its co-runners held at the least share"),
            std::string::npos)
      << r.error;
  // But not the part of a Slurm step whose part on node2 already runs (its
  // ranks wait there for this one), given GPU 0 by Slurm.
  const auto place_part = [&](const std::string& host, const std::string& step) {
    c.OnMessage("cli",
                Bytes(Place({.job = "slurm-7." + step + "." + host,
                             .priority = w::Priority::Opportunistic,
                             .mem_bytes = 0,
                             .host = host,
                             .allowed_gpus = std::vector<int>{0},
                             .batch = BatchIds{"slurm", "7", step, -1}})),
                t, kUnix + t, &out_);
    return LastPlaceReply(out_);
  };
  EXPECT_TRUE(place_part("node1", "1").queued);  // step 1 runs nowhere else
  ASSERT_TRUE(place_part("node2", "0").ok);
  r = place_part("node1", "0");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_THAT(r.error, HasSubstr("the rest of its step runs on node2, waiting for it"));
  for (const char* part : {"slurm-7.0.node1", "slurm-7.0.node2"}) {
    c.OnMessage("cli", Bytes(testing::Release(part, c.jobs().at(part).token)), t, kUnix + t, &out_);
  }
  run(100, 40);  // g recovers: the loop raises o again
  EXPECT_GT(c.jobs().at("o").sent_share, 0.06);
  r = place_third("n3");
  EXPECT_TRUE(r.ok) << r.error;
}

// Packing: a pair known to share almost for free (0.98 of solo speed each),
// and whole-GPU jobs among the requests seen. A memory share then goes next
// to its compatible partner rather than onto the last empty GPU, which the
// next whole-GPU job will want; with --no-packing it takes the empty GPU.
TEST_F(CoordinatorInterferenceTest, PacksAShareWhereSharingIsNearlyFree) {
  for (const bool packing : {true, false}) {
    SCOPED_TRACE(packing ? "packing" : "no packing");
    std::filesystem::remove_all(dir_);
    Record(40, "vgg16", "lstm", 0.02, 0.02);
    auto store = OpenStore();
    DaemonOptions options;
    options.packing = packing;
    Coordinator c(options, Gpus(3), store.get(), nullptr, 0);
    c.OnMessage("cli", Bytes(Place({.job = "w", .priority = w::Priority::Opportunistic,
                                    .mem_bytes = 0, .slowdown_target = 0, .kind = "bert"})),
                0, kUnix, &out_);
    ASSERT_TRUE(LastPlaceReply(out_).ok);
    c.OnMessage("cli", Bytes(PlaceKind("v", "vgg16")), 0, kUnix, &out_);
    ASSERT_TRUE(LastPlaceReply(out_).ok);
    const policy::GpuId v_gpu = *c.jobs().at("v").gpu;
    c.OnMessage("cli", Bytes(PlaceKind("l", "lstm")), 0, kUnix, &out_);
    const PlaceResult r = LastPlaceReply(out_);
    ASSERT_TRUE(r.ok) << r.error;
    if (packing) {
      EXPECT_EQ(*c.jobs().at("l").gpu, v_gpu) << r.error;
    } else {
      EXPECT_NE(*c.jobs().at("l").gpu, v_gpu) << r.error;
    }
  }
}

// `iashim status --pairs`: the snapshot carries the learned pairs only when
// asked, with what was measured and what the model predicts.
TEST_F(CoordinatorInterferenceTest, StatusWithPairsShowsWhatTheModelLearned) {
  Record(10, "vgg16", "lstm", 1.0, 0.25);  // vgg16 at half its solo speed, lstm at 0.8
  auto store = OpenStore();
  auto c = Make(store.get());
  const auto snapshot = [&](bool pairs) {
    const std::string bytes = c->EncodeSnapshot(kSecond, kUnix, {.pairs = pairs});
    std::vector<uint8_t> copy(bytes.begin(), bytes.end());
    return copy;
  };
  const std::vector<uint8_t> without = snapshot(false);
  EXPECT_EQ(w::GetEnvelope(without.data())->payload_as_StateSnapshot()->pairs(), nullptr);
  const std::vector<uint8_t> with = snapshot(true);
  const auto* pairs = w::GetEnvelope(with.data())->payload_as_StateSnapshot()->pairs();
  ASSERT_NE(pairs, nullptr);
  ASSERT_EQ(pairs->size(), 2u);
  const w::LearnedPair* lstm = pairs->Get(0);  // (victim, aggressor) order
  EXPECT_EQ(lstm->victim()->str(), "lstm");
  EXPECT_EQ(lstm->aggressor()->str(), "vgg16");
  EXPECT_EQ(lstm->observations(), 10u);
  EXPECT_NEAR(lstm->measured(), 0.8, 1e-9);
  EXPECT_NEAR(lstm->predicted(), 0.8, 0.05);
  EXPECT_GT(lstm->uncertainty(), 0);
  EXPECT_NEAR(pairs->Get(1)->measured(), 0.5, 1e-9);
}

TEST_F(CoordinatorInterferenceTest, AKindThatIsNotPrintableIsRefused) {
  auto c = Make(nullptr);
  c->OnMessage("cli", Bytes(PlaceKind("x", std::string("bad\x01kind"))), 0, kUnix, &out_);
  const PlaceResult r = LastPlaceReply(out_);
  ASSERT_TRUE(r.replied);
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.queued);
  EXPECT_NE(r.error.find("kind"), std::string::npos);
  EXPECT_TRUE(c->jobs().empty());
}

}  // namespace
}  // namespace iashim::daemon
