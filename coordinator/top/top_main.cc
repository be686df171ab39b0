// iashim-top: a live terminal view of the coordinator's state stream.
//
// One loop, one thread: zmq::poll waits on the SUB socket and on stdin at
// once, with a timeout that brings the next timed redraw, so keys, snapshots
// and the ticking snapshot age are all handled without locks.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "common/security/client_keys.h"
#include "coordinator/top/ended_jobs.h"
#include "coordinator/top/options.h"
#include "coordinator/top/screen.h"
#include "coordinator/top/snapshot_view.h"
#include "coordinator/top/subscriber.h"
#include "coordinator/top/table_layout.h"
#include "coordinator/top/ui_state.h"

namespace iashim::top {
namespace {

using Clock = std::chrono::steady_clock;

// Redraw at least this often even with nothing new, so the snapshot age
// counts up and a stalled coordinator shows as stale.
constexpr auto kRedrawEvery = std::chrono::milliseconds(250);

volatile std::sig_atomic_t g_stop = 0;

void OnStopSignal(int) { g_stop = 1; }

// SIGINT, SIGTERM and SIGHUP (the ssh session went away) end the loop so the
// terminal is restored; without SA_RESTART, so zmq::poll returns at once.
void InstallStopHandlers() {
  struct sigaction action = {};
  action.sa_handler = OnStopSignal;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &action, nullptr);
}

double SecondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

int Run(const TopOptions& options) {
  zmq::context_t context(1);
  std::optional<Subscriber> subscriber;
  security::ClientKeys keys;
  {
    std::string key = options.coordinator_key;
    if (const char* env = std::getenv("IASHIM_COORDINATOR_KEY"); key.empty() && env != nullptr) {
      key = env;
    }
    std::string error;
    if (!security::ResolveClientKeys(options.pub_endpoint, key, "", &keys, &error)) {
      std::fprintf(stderr, "iashim-top: %s\n", error.c_str());
      return 2;
    }
  }
  try {
    subscriber.emplace(context, options.pub_endpoint, keys);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "iashim-top: cannot subscribe to %s: %s\n", options.pub_endpoint.c_str(),
                 e.what());
    return 2;
  }
  std::string error;
  std::unique_ptr<Screen> screen = Screen::Open(&error);
  if (screen == nullptr) {
    std::fprintf(stderr, "iashim-top: %s\n", error.c_str());
    return 1;
  }
  InstallStopHandlers();

  UiState ui;
  EndedJobs ended;
  std::optional<ClusterView> latest;  // the newest snapshot received
  std::optional<ClusterView> shown;   // what is on screen: `latest` unless paused
  Clock::time_point latest_at;
  const Clock::time_point started = Clock::now();
  Layout layout;
  bool dirty = true;
  Clock::time_point next_redraw = Clock::now();

  while (!g_stop && !ui.quit) {
    if (dirty || Clock::now() >= next_redraw) {
      LayoutInput in;
      // Ended jobs leave by our clock, so also while the coordinator keeps them.
      std::optional<ClusterView> visible;
      if (shown) visible = ended.Visible(*shown, SecondsSince(started));
      in.view = visible ? &*visible : nullptr;
      in.legend = ui.legend;
      in.endpoint = options.pub_endpoint;
      // The age of what arrived last, paused or not: it tells whether the
      // coordinator is alive, and our own clock needs no agreement with its.
      in.age_s = latest ? SecondsSince(latest_at) : 0;
      in.paused = ui.paused;
      in.sort = ui.sort;
      in.scroll = ui.scroll;
      in.dropped = subscriber->counts().dropped();
      in.width = screen->width();
      in.height = screen->height();
      layout = LayOut(in);
      ui.scroll = std::min(ui.scroll, layout.max_scroll);
      screen->Draw(layout.lines);
      dirty = false;
      next_redraw = Clock::now() + kRedrawEvery;
    }

    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::max(next_redraw - Clock::now(), Clock::duration::zero()));
    zmq::pollitem_t items[] = {
        {static_cast<void*>(subscriber->socket()), 0, ZMQ_POLLIN, 0},
        {nullptr, STDIN_FILENO, ZMQ_POLLIN, 0},
    };
    try {
      zmq::poll(items, 2, wait);
    } catch (const zmq::error_t& e) {
      // A signal: SIGWINCH (ncurses then reports KEY_RESIZE) or a stop.
      if (e.num() != EINTR) throw;
    }
    if (items[1].revents & ZMQ_POLLERR) break;  // the terminal is gone

    // Both are cheap when idle, and reading regardless of revents also picks
    // up the resize that interrupted the poll.
    if (std::optional<ClusterView> view = subscriber->Drain()) {
      latest = std::move(view);
      latest_at = Clock::now();
      ended.Observe(*latest, SecondsSince(started));
      if (!ui.paused) {
        shown = latest;
        dirty = true;
      }
    }
    for (Command command : screen->ReadCommands()) {
      Apply(command, layout.page, layout.max_scroll, &ui);
      if (command == Command::kTogglePause && !ui.paused) shown = latest;
      dirty = true;
    }
  }
  return 0;
}

}  // namespace
}  // namespace iashim::top

#if defined(IASHIM_SANITIZE_THREAD)
// TSan builds only: libzmq is not instrumented, so its I/O thread's hand-offs
// (which it synchronises itself) look like races.
extern "C" const char* __tsan_default_suppressions() { return "race:libzmq.so\n"; }
#endif

int main(int argc, char** argv) {
  using iashim::top::ParseOptions;
  const std::vector<std::string> args(argv + 1, argv + argc);
  const auto options = ParseOptions(args);
  if (!options.ok()) {
    std::fprintf(stderr, "iashim-top: %s\nTry 'iashim-top --help'.\n",
                 std::string(options.status().message()).c_str());
    return 2;
  }
  if (options->help) {
    std::fputs(iashim::top::Usage().c_str(), stdout);
    return 0;
  }
  if (options->version) {
    std::printf("iashim-top %s\n", IASHIM_TOP_VERSION);
    return 0;
  }
  try {
    return iashim::top::Run(*options);
  } catch (const std::exception& e) {
    // Screen's destructor has already given the terminal back.
    std::fprintf(stderr, "iashim-top: %s\n", e.what());
    return 1;
  }
}
