// iashim-coordinator: see daemon_options.cc (--help) and coordinator.h.
#include <signal.h>
#include <time.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <vector>

#include "coordinator/cluster/cluster_file.h"
#include "coordinator/cluster/nvml_discovery.h"
#include "coordinator/daemon/coordinator.h"
#include "coordinator/daemon/daemon_options.h"
#include "coordinator/daemon/server.h"
#include "coordinator/daemon/server_keys.h"
#include "coordinator/policy/simple_placement.h"
#include "coordinator/state/state_store.h"

namespace {

std::atomic<bool> g_stop{false};

void OnSignal(int) { g_stop.store(true); }

int64_t Monotonic() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

#if defined(IASHIM_SANITIZE_THREAD)
// TSan builds only: libzmq is not instrumented, so its I/O thread's hand-offs
// (which it synchronises itself) look like races.
extern "C" const char* __tsan_default_suppressions() { return "race:libzmq.so\n"; }
#endif

int main(int argc, char** argv) {
  using namespace iashim;
  absl::StatusOr<daemon::DaemonOptions> options =
      daemon::ParseDaemonOptions(std::vector<std::string>(argv + 1, argv + argc));
  if (!options.ok()) {
    std::fprintf(stderr, "iashim-coordinator: %s\n", std::string(options.status().message()).c_str());
    return 2;
  }
  if (options->help) {
    std::fputs(daemon::DaemonUsage().c_str(), stdout);
    return 0;
  }
  if (options->version) {
    std::puts("iashim-coordinator 0.1.0");
    return 0;
  }
  // Keys first: a bad key file is a configuration error, found before any
  // state is opened or anything bound.
  absl::StatusOr<daemon::ServerKeys> keys = daemon::LoadServerKeys(*options);
  if (!keys.ok()) {
    std::fprintf(stderr, "iashim-coordinator: %s\n", std::string(keys.status().message()).c_str());
    return 2;
  }
  absl::StatusOr<policy::Cluster> cluster = options->cluster_file.empty()
                                                ? cluster::DiscoverLocalGpus()
                                                : cluster::ReadClusterFile(options->cluster_file);
  if (!cluster.ok()) {
    std::fprintf(stderr, "iashim-coordinator: %s\n", std::string(cluster.status().message()).c_str());
    return 1;
  }
  absl::StatusOr<std::unique_ptr<state::StateStore>> store = state::StateStore::Open(options->state_dir);
  if (!store.ok()) {
    // Held by another process: a second coordinator started by mistake, most likely.
    std::fprintf(stderr, "iashim-coordinator: %s%s\n", std::string(store.status().message()).c_str(),
                 absl::IsUnavailable(store.status())
                     ? ": another iashim-coordinator may be running; stop it, or give this one "
                       "another --state-dir (and --listen, --pub)"
                     : "");
    return 1;
  }
  const state::LoadReport& report = (*store)->load_report();
  std::fprintf(stderr,
               "iashim-coordinator: state in %s: %zu jobs, %zu baselines, %zu observations, "
               "budget seq %llu\n",
               options->state_dir.c_str(), (*store)->state().jobs.size(),
               (*store)->state().baselines.size(), (*store)->state().observations.size(),
               static_cast<unsigned long long>((*store)->state().budget_seq));
  if (!report.clean()) {
    std::fprintf(stderr, "iashim-coordinator: state recovery: %s\n", report.ToString().c_str());
  }
  struct sigaction sa = {};
  sa.sa_handler = OnSignal;
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
  std::unique_ptr<policy::PlacementPolicy> placement;  // null: the coordinator's own
  if (options->placement == "simple") placement = std::make_unique<policy::SimplePlacement>();
  daemon::Coordinator coordinator(*options, *cluster, store->get(), std::move(placement),
                                  Monotonic());
  // Said once the sockets are bound: a port in use is reported instead.
  auto say_listening = [&] {
    std::fprintf(stderr, "iashim-coordinator: %zu GPU(s); listening on %s, publishing on %s%s%s\n",
                 cluster->gpus.size(), options->listen.c_str(), options->pub.c_str(),
                 options->metrics.empty() ? "" : ", metrics on http://",
                 options->metrics.empty() ? "" : (options->metrics + "/metrics").c_str());
    if (keys->curve()) {
      std::fprintf(stderr,
                   "iashim-coordinator: CurveZMQ on; clients need its public key %s; %zu admin "
                   "key(s)\n",
                   keys->public_key.c_str(), keys->admin_public_keys.size());
    } else {
      std::fprintf(stderr, "iashim-coordinator: plain text on loopback only (no --curve-secret-key)\n");
    }
  };
  const absl::Status served =
      daemon::Serve(*options, coordinator, store->get(), &g_stop, *keys, say_listening);
  if (!served.ok()) {
    std::fprintf(stderr, "iashim-coordinator: %s\n", std::string(served.message()).c_str());
    return 1;
  }
  std::fprintf(stderr, "iashim-coordinator: stopped\n");
  return 0;
}
