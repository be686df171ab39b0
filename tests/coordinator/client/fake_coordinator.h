// A stand-in coordinator for the CLI's tests: a ROUTER socket on an ipc://
// endpoint in a fresh temporary directory, served by its own thread, that
// answers each request with whatever the test's responder returns.
#ifndef IASHIM_TESTS_COORDINATOR_CLIENT_FAKE_COORDINATOR_H_
#define IASHIM_TESTS_COORDINATOR_CLIENT_FAKE_COORDINATOR_H_

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "schemas/telemetry_generated.h"
#include "tests/coordinator/client/test_messages.h"

namespace iashim::client::testing {

// A request as the fake saw it (after verification).
struct SeenRequest {
  wire::Payload type = wire::Payload::NONE;
  // PlaceRequest fields; empty/zero for other requests.
  std::string job;
  wire::Priority priority = wire::Priority::Guaranteed;
  uint64_t mem_bytes = 0;
  int gpu = 0;
  std::string host;
  std::string command;
  double slowdown_target = 0;
  bool dry_run = false;
  bool guaranteed_gres = false;
  int gpus = 1;  // PlaceRequest.gpus
  int pid = 0;
  std::string token;  // ReleaseRequest (with job)
};

class FakeCoordinator {
 public:
  // Messages to send back (each one frame after the routing id; none is a
  // valid answer: silence) for the `n`th request (from 0).
  using Responder = std::function<std::vector<Bytes>(const SeenRequest& request, int n)>;

  // `with_delimiter`: put an empty frame before each reply, as a coordinator
  // answering REQ sockets would.
  explicit FakeCoordinator(Responder responder, bool with_delimiter = false);
  ~FakeCoordinator();
  FakeCoordinator(const FakeCoordinator&) = delete;
  FakeCoordinator& operator=(const FakeCoordinator&) = delete;

  const std::string& endpoint() const { return endpoint_; }
  std::vector<SeenRequest> requests() const;
  // Waits up to `timeout_s` for at least `n` requests.
  bool WaitForRequests(size_t n, double timeout_s) const;

 private:
  void Serve();

  Responder responder_;
  bool with_delimiter_;
  std::string dir_;
  std::string endpoint_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> ready_{false};
  mutable std::mutex mu_;
  std::vector<SeenRequest> requests_;
  std::thread thread_;
};

// A temporary directory removed (with its files) at destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace iashim::client::testing

#endif  // IASHIM_TESTS_COORDINATOR_CLIENT_FAKE_COORDINATOR_H_
