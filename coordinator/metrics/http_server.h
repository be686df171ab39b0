// The coordinator's `--metrics HOST:PORT` endpoint: a minimal HTTP/1.1 server
// that answers GET /metrics with the Prometheus text format and nothing else.
//
// One thread, one poll() loop, non-blocking sockets: a scrape is small and
// rare (every 15 s or so), so threads per connection would buy nothing, and a
// client that connects and stalls must not hold up the next one, which a
// blocking read would. Each connection has a deadline; every response closes
// the connection (no keep-alive), which Prometheus handles.
#ifndef IASHIM_COORDINATOR_METRICS_HTTP_SERVER_H_
#define IASHIM_COORDINATOR_METRICS_HTTP_SERVER_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "coordinator/metrics/listen_address.h"

namespace iashim::metrics {

struct MetricsServerOptions {
  ListenAddress address;  // from ParseListenAddress; port 0 picks a free one
  // Renders the exposition. Called on the server's thread, once per GET /metrics
  // (not for HEAD), so it must be safe to call concurrently with the rest of
  // the daemon, and should be quick: other connections wait while it runs.
  std::function<std::string()> metrics;
  // A request head (request line and headers) longer than this is answered
  // with 431 Request Header Fields Too Large.
  size_t max_request_bytes = 8 * 1024;
  // A client must send its whole request head within this time of connecting,
  // and must keep reading the response (no stall longer than this).
  std::chrono::milliseconds io_timeout{5000};
  // Connections served at once; more wait in the listen backlog.
  int max_connections = 32;
};

class MetricsServer {
 public:
  explicit MetricsServer(MetricsServerOptions options);
  // Stops the server if it is running.
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  // Binds, listens and starts the server's thread. Errors say which address
  // could not be used and why (e.g. "Address already in use"). Once only.
  absl::Status Start();

  // Closes the listening socket and every connection and joins the thread;
  // returns promptly even while clients are connected. Idempotent.
  void Stop();

  // The port bound by Start(): the one asked for, or the kernel's pick for 0.
  // 0 before Start().
  uint16_t port() const { return port_; }

 private:
  void Run();

  MetricsServerOptions options_;
  int listen_fd_ = -1;
  int wake_fd_ = -1;  // an eventfd: Stop() writes it to end poll()
  uint16_t port_ = 0;
  bool started_ = false;
  std::thread thread_;
};

}  // namespace iashim::metrics

#endif  // IASHIM_COORDINATOR_METRICS_HTTP_SERVER_H_
