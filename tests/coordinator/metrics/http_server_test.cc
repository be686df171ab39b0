// The metrics server on an ephemeral port of 127.0.0.1, driven by raw
// sockets so that malformed, oversized, partial and stalled requests can be
// sent. Timeouts here only keep a broken server from hanging the test; no
// test asserts how fast anything is.
#include "coordinator/metrics/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>

#include "gtest/gtest.h"

namespace iashim::metrics {
namespace {

constexpr char kBody[] = "# TYPE up gauge\nup 1\n";
constexpr char kOk[] =
    "HTTP/1.1 200 OK\r\n"
    "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
    "Content-Length: 21\r\n"
    "Connection: close\r\n"
    "\r\n"
    "# TYPE up gauge\nup 1\n";
constexpr char kGet[] = "GET /metrics HTTP/1.1\r\nHost: test\r\n\r\n";
// Failure guard only: how long a client waits for a reply before giving up.
constexpr int kGuardSeconds = 20;

// A blocking TCP client to 127.0.0.1:port.
class Client {
 public:
  explicit Client(uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    timeval guard = {kGuardSeconds, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &guard, sizeof guard);
    ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &guard, sizeof guard);
    sockaddr_in addr = {};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~Client() { ::close(fd_); }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  bool connected() const { return connected_; }

  bool Send(std::string_view data) {
    while (!data.empty()) {
      const ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      data.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }

  void ShutdownWrite() { ::shutdown(fd_, SHUT_WR); }

  // Everything until the server closes the connection (or the guard expires).
  std::string ReadAll() {
    std::string out;
    char buffer[4096];
    while (true) {
      const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n <= 0) return out;
      out.append(buffer, static_cast<size_t>(n));
    }
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
};

class HttpServerTest : public testing::Test {
 protected:
  // Starts a server on 127.0.0.1 with an ephemeral port.
  void StartServer(std::chrono::milliseconds io_timeout = std::chrono::seconds(30)) {
    MetricsServerOptions options;
    options.address = ListenAddress{"127.0.0.1", 0};
    options.metrics = [this] {
      ++scrapes_;
      return std::string(kBody);
    };
    options.io_timeout = io_timeout;
    server_ = std::make_unique<MetricsServer>(std::move(options));
    absl::Status started = server_->Start();
    ASSERT_TRUE(started.ok()) << started;
    ASSERT_NE(server_->port(), 0);
  }

  // Sends `request` on a new connection and returns the whole response.
  std::string Exchange(std::string_view request) {
    Client client(server_->port());
    EXPECT_TRUE(client.connected());
    EXPECT_TRUE(client.Send(request));
    return client.ReadAll();
  }

  std::atomic<int> scrapes_{0};
  std::unique_ptr<MetricsServer> server_;
};

// The status line and the body of a response.
std::string StatusLine(const std::string& response) {
  return response.substr(0, response.find("\r\n"));
}

TEST_F(HttpServerTest, ServesMetrics) {
  StartServer();
  EXPECT_EQ(Exchange(kGet), kOk);
  EXPECT_EQ(Exchange("GET /metrics?debug=1 HTTP/1.1\r\nHost: test\r\n\r\n"), kOk);
  EXPECT_EQ(Exchange("GET /metrics HTTP/1.0\n\n"), kOk);
  EXPECT_EQ(scrapes_, 3);
}

TEST_F(HttpServerTest, AnswersHeadWithoutRendering) {
  StartServer();
  EXPECT_EQ(Exchange("HEAD /metrics HTTP/1.1\r\nHost: test\r\n\r\n"),
            "HTTP/1.1 200 OK\r\n"
            "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
            "Connection: close\r\n"
            "\r\n");
  EXPECT_EQ(scrapes_, 0);
}

TEST_F(HttpServerTest, AnswersOtherPathsWith404) {
  StartServer();
  EXPECT_EQ(Exchange("GET /other HTTP/1.1\r\nHost: test\r\n\r\n"),
            "HTTP/1.1 404 Not Found\r\n"
            "Content-Type: text/plain; charset=utf-8\r\n"
            "Content-Length: 24\r\n"
            "Connection: close\r\n"
            "\r\n"
            "not found: try /metrics\n");
  EXPECT_EQ(StatusLine(Exchange("GET / HTTP/1.1\r\nHost: test\r\n\r\n")), "HTTP/1.1 404 Not Found");
  EXPECT_EQ(StatusLine(Exchange("POST /metricsx HTTP/1.1\r\nHost: test\r\n\r\n")),
            "HTTP/1.1 404 Not Found");
  EXPECT_EQ(scrapes_, 0);
}

TEST_F(HttpServerTest, AnswersOtherMethodsWith405) {
  StartServer();
  const std::string response =
      Exchange("POST /metrics HTTP/1.1\r\nHost: test\r\nContent-Length: 3\r\n\r\nabc");
  EXPECT_EQ(response,
            "HTTP/1.1 405 Method Not Allowed\r\n"
            "Content-Type: text/plain; charset=utf-8\r\n"
            "Content-Length: 28\r\n"
            "Allow: GET, HEAD\r\n"
            "Connection: close\r\n"
            "\r\n"
            "method not allowed: use GET\n");
  EXPECT_EQ(StatusLine(Exchange("DELETE /metrics HTTP/1.1\r\nHost: test\r\n\r\n")),
            "HTTP/1.1 405 Method Not Allowed");
  EXPECT_EQ(scrapes_, 0);
}

TEST_F(HttpServerTest, AnswersMalformedRequestsWith400) {
  StartServer();
  EXPECT_EQ(Exchange("hello\r\n\r\n"),
            "HTTP/1.1 400 Bad Request\r\n"
            "Content-Type: text/plain; charset=utf-8\r\n"
            "Content-Length: 23\r\n"
            "Connection: close\r\n"
            "\r\n"
            "malformed request line\n");
  EXPECT_EQ(StatusLine(Exchange(std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\n\n", 11))),
            "HTTP/1.1 400 Bad Request");
  EXPECT_EQ(StatusLine(Exchange("GET /metrics HTTP/1.1\r\n\r\n")), "HTTP/1.1 400 Bad Request");
  EXPECT_EQ(StatusLine(Exchange("GET /metrics HTTP/3.0\r\nHost: test\r\n\r\n")),
            "HTTP/1.1 505 HTTP Version Not Supported");
  EXPECT_EQ(scrapes_, 0);
}

TEST_F(HttpServerTest, AnswersAnIncompleteRequestWith400WhenTheClientStopsSending) {
  StartServer();
  Client client(server_->port());
  ASSERT_TRUE(client.connected());
  ASSERT_TRUE(client.Send("GET /metrics HTTP/1.1\r\n"));
  client.ShutdownWrite();
  EXPECT_EQ(StatusLine(client.ReadAll()), "HTTP/1.1 400 Bad Request");
}

TEST_F(HttpServerTest, AnswersOversizedHeadersWith431) {
  StartServer();
  const std::string big_header =
      "GET /metrics HTTP/1.1\r\nHost: test\r\nX-Big: " + std::string(9000, 'a') + "\r\n\r\n";
  EXPECT_EQ(Exchange(big_header),
            "HTTP/1.1 431 Request Header Fields Too Large\r\n"
            "Content-Type: text/plain; charset=utf-8\r\n"
            "Content-Length: 25\r\n"
            "Connection: close\r\n"
            "\r\n"
            "request header too large\n");
  // A head that never ends is cut off at the limit too.
  EXPECT_EQ(StatusLine(Exchange(std::string(50'000, 'G'))),
            "HTTP/1.1 431 Request Header Fields Too Large");
  // Just under the limit is served.
  const std::string fits = "GET /metrics HTTP/1.1\r\nHost: test\r\nX-Fill: ";
  EXPECT_EQ(Exchange(fits + std::string(8 * 1024 - fits.size() - 4, 'a') + "\r\n\r\n"), kOk);
  EXPECT_EQ(scrapes_, 1);
}

TEST_F(HttpServerTest, AStalledClientDoesNotBlockOthers) {
  StartServer();
  Client silent(server_->port());
  ASSERT_TRUE(silent.connected());
  Client partial(server_->port());
  ASSERT_TRUE(partial.connected());
  ASSERT_TRUE(partial.Send("GET /met"));

  EXPECT_EQ(Exchange(kGet), kOk);
  EXPECT_EQ(Exchange(kGet), kOk);

  // The stalled request is still served once it is complete.
  ASSERT_TRUE(partial.Send("rics HTTP/1.1\r\nHost: test\r\n\r\n"));
  EXPECT_EQ(partial.ReadAll(), kOk);
}

TEST_F(HttpServerTest, ClosesStalledConnectionsAfterTheTimeout) {
  StartServer(std::chrono::seconds(1));
  Client silent(server_->port());
  ASSERT_TRUE(silent.connected());
  Client partial(server_->port());
  ASSERT_TRUE(partial.connected());
  ASSERT_TRUE(partial.Send("GET /metrics HTTP/1.1\r\n"));
  EXPECT_EQ(silent.ReadAll(), "");  // closed without a word
  EXPECT_EQ(StatusLine(partial.ReadAll()), "HTTP/1.1 408 Request Timeout");
}

TEST_F(HttpServerTest, StopReturnsWhileClientsAreConnected) {
  StartServer();
  Client silent(server_->port());
  ASSERT_TRUE(silent.connected());
  Client partial(server_->port());
  ASSERT_TRUE(partial.connected());
  ASSERT_TRUE(partial.Send("GET /metrics HTTP/1.1\r\n"));
  EXPECT_EQ(Exchange(kGet), kOk);  // both are accepted by now

  std::future<void> stopped = std::async(std::launch::async, [this] { server_->Stop(); });
  ASSERT_EQ(stopped.wait_for(std::chrono::seconds(kGuardSeconds)), std::future_status::ready);
  EXPECT_EQ(silent.ReadAll(), "");
  EXPECT_EQ(partial.ReadAll(), "");
  server_->Stop();  // idempotent
}

TEST_F(HttpServerTest, ServesManyRequestsInTurn) {
  StartServer();
  for (int i = 0; i < 200; ++i) ASSERT_EQ(Exchange(kGet), kOk) << "request " << i;
  EXPECT_EQ(scrapes_, 200);
}

TEST(HttpServerStartTest, ReportsAPortInUse) {
  MetricsServerOptions options;
  options.address = ListenAddress{"127.0.0.1", 0};
  options.metrics = [] { return std::string(); };
  MetricsServer first(options);
  ASSERT_TRUE(first.Start().ok());

  options.address.port = first.port();
  MetricsServer second(options);
  absl::Status status = second.Start();
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(status.message(), "cannot listen on 127.0.0.1:" + std::to_string(first.port()) +
                                  ": bind: Address already in use (another process is listening "
                                  "on that port)");
}

TEST(HttpServerStartTest, ReportsAnAddressNotOnThisMachine) {
  MetricsServerOptions options;
  options.address = ListenAddress{"192.0.2.1", 0};  // TEST-NET-1, never assigned
  options.metrics = [] { return std::string(); };
  MetricsServer server(options);
  absl::Status status = server.Start();
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(status.message(),
            "cannot listen on 192.0.2.1:0: bind: Cannot assign requested address (not an address "
            "of this machine)");
}

TEST(HttpServerStartTest, RefusesMisuse) {
  MetricsServerOptions options;
  options.address = ListenAddress{"127.0.0.1", 0};
  EXPECT_EQ(MetricsServer(options).Start().code(), absl::StatusCode::kInvalidArgument);

  options.metrics = [] { return std::string(); };
  MetricsServer server(options);
  ASSERT_TRUE(server.Start().ok());
  EXPECT_EQ(server.Start().code(), absl::StatusCode::kFailedPrecondition);
  server.Stop();
  EXPECT_EQ(server.Start().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(HttpServerStartTest, StopsInTheDestructorAndWithoutStart) {
  MetricsServerOptions options;
  options.address = ListenAddress{"localhost", 0};
  options.metrics = [] { return std::string(); };
  { MetricsServer never_started(options); }
  MetricsServer server(options);
  ASSERT_TRUE(server.Start().ok());
  EXPECT_NE(server.port(), 0);
}

}  // namespace
}  // namespace iashim::metrics
