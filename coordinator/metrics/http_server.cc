#include "coordinator/metrics/http_server.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "coordinator/metrics/http_request.h"

namespace iashim::metrics {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::string_view kMetricsPath = "/metrics";
constexpr std::string_view kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";
constexpr std::string_view kPlainContentType = "text/plain; charset=utf-8";
constexpr size_t kReadChunk = 4096;
// After the response, what the client still sends is read and dropped up to
// this much, so that closing does not reset the connection (and with it the
// response the client has not read yet).
constexpr size_t kMaxDrainBytes = 64 * 1024;
// How long accept() rests after running out of descriptors or memory, so
// that a full table does not turn the loop into a busy spin.
constexpr std::chrono::milliseconds kAcceptBackoff{100};

const char* ReasonPhrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 431:
      return "Request Header Fields Too Large";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Error";
  }
}

// The whole response. Every response closes the connection, so a HEAD
// response may leave out Content-Length (RFC 9110 9.3.2): GET's length would
// cost rendering the metrics.
std::string FormatResponse(int status, std::string_view content_type, std::string_view body,
                           bool head_only, std::string_view extra_headers = "") {
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + ReasonPhrase(status) + "\r\n";
  out.append("Content-Type: ").append(content_type).append("\r\n");
  if (!head_only) out.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n");
  out.append(extra_headers);
  out.append("Connection: close\r\n\r\n");
  if (!head_only) out.append(body);
  return out;
}

std::string ErrorResponse(int status, std::string_view reason, bool head_only = false) {
  return FormatResponse(status, kPlainContentType, std::string(reason) + "\n", head_only);
}

std::string Route(const HttpRequest& request, const std::function<std::string()>& metrics) {
  const bool head = request.method == "HEAD";
  if (request.path != kMetricsPath) return ErrorResponse(404, "not found: try /metrics", head);
  if (request.method != "GET" && !head) {
    return FormatResponse(405, kPlainContentType, "method not allowed: use GET\n", false,
                          "Allow: GET, HEAD\r\n");
  }
  if (head) return FormatResponse(200, kMetricsContentType, "", true);
  return FormatResponse(200, kMetricsContentType, metrics(), false);
}

struct Connection {
  enum class Phase { kReading, kWriting, kDraining };

  int fd = -1;  // -1 once closed; removed from the list after the pass
  Phase phase = Phase::kReading;
  std::string in;
  std::string out;
  size_t sent = 0;
  size_t drained = 0;
  Clock::time_point deadline;
};

void Close(Connection& c) {
  if (c.fd >= 0) ::close(c.fd);
  c.fd = -1;
}

bool Retryable(int err) { return err == EAGAIN || err == EWOULDBLOCK || err == EINTR; }

std::string BindHint(int err) {
  switch (err) {
    case EADDRINUSE:
      return " (another process is listening on that port)";
    case EADDRNOTAVAIL:
      return " (not an address of this machine)";
    case EACCES:
      return " (ports below 1024 need privileges)";
    default:
      return "";
  }
}

// The per-connection state machine: reading the head, writing the response,
// draining what the client still sends.
class ConnectionHandler {
 public:
  explicit ConnectionHandler(const MetricsServerOptions& options) : options_(options) {}

  void Service(Connection& c, Clock::time_point now) {
    switch (c.phase) {
      case Connection::Phase::kReading:
        return Read(c, now);
      case Connection::Phase::kWriting:
        return Write(c, now);
      case Connection::Phase::kDraining:
        return Drain(c);
    }
  }

  // A client that has sent part of a request is told why it is cut off; one
  // that sent nothing (a port probe, a browser's preconnect) is just closed.
  void Expire(Connection& c, Clock::time_point now) {
    if (c.phase == Connection::Phase::kReading && !c.in.empty()) {
      return Respond(c, ErrorResponse(408, "request not received in time"), now);
    }
    Close(c);
  }

 private:
  void Read(Connection& c, Clock::time_point now) {
    char buffer[kReadChunk];
    const ssize_t n = ::recv(c.fd, buffer, sizeof buffer, 0);
    if (n < 0) {
      if (!Retryable(errno)) Close(c);
      return;
    }
    if (n == 0) {
      // The client stopped sending; if it only half-closed, it can still read why.
      if (c.in.empty()) return Close(c);
      return Respond(c, ErrorResponse(400, "incomplete request"), now);
    }
    c.in.append(buffer, static_cast<size_t>(n));
    const size_t end = FindHeadEnd(c.in);
    if (end == std::string::npos && c.in.size() <= options_.max_request_bytes) return;
    if (end == std::string::npos || end > options_.max_request_bytes) {
      return Respond(c, ErrorResponse(431, "request header too large"), now);
    }
    std::variant<HttpRequest, HttpRequestError> parsed =
        ParseHttpRequestHead(std::string_view(c.in).substr(0, end));
    if (auto* error = std::get_if<HttpRequestError>(&parsed)) {
      return Respond(c, ErrorResponse(error->status, error->reason), now);
    }
    Respond(c, Route(std::get<HttpRequest>(parsed), options_.metrics), now);
  }

  void Respond(Connection& c, std::string response, Clock::time_point now) {
    c.in = std::string();
    c.out = std::move(response);
    c.sent = 0;
    c.phase = Connection::Phase::kWriting;
    c.deadline = now + options_.io_timeout;
    Write(c, now);  // usually all of it fits in the socket buffer at once
  }

  void Write(Connection& c, Clock::time_point now) {
    while (c.sent < c.out.size()) {
      const ssize_t n = ::send(c.fd, c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL);
      if (n < 0) {
        if (!Retryable(errno)) Close(c);
        return;
      }
      c.sent += static_cast<size_t>(n);
      c.deadline = now + options_.io_timeout;  // progress: a slow reader is not a stalled one
    }
    ::shutdown(c.fd, SHUT_WR);
    c.out = std::string();
    c.phase = Connection::Phase::kDraining;
    c.deadline = now + options_.io_timeout;
  }

  void Drain(Connection& c) {
    char buffer[kReadChunk];
    const ssize_t n = ::recv(c.fd, buffer, sizeof buffer, 0);
    if (n < 0 && Retryable(errno)) return;
    if (n <= 0) return Close(c);
    c.drained += static_cast<size_t>(n);
    if (c.drained > kMaxDrainBytes) Close(c);
  }

  const MetricsServerOptions& options_;
};

}  // namespace

MetricsServer::MetricsServer(MetricsServerOptions options) : options_(std::move(options)) {}

MetricsServer::~MetricsServer() { Stop(); }

absl::Status MetricsServer::Start() {
  if (started_) return absl::FailedPreconditionError("metrics server already started");
  if (!options_.metrics) return absl::InvalidArgumentError("metrics server needs a callback");
  if (options_.max_request_bytes < 64 || options_.io_timeout.count() <= 0 ||
      options_.max_connections < 1) {
    return absl::InvalidArgumentError(
        "metrics server limits must be positive (max_request_bytes at least 64)");
  }
  const std::string where = options_.address.ToString();
  const std::string& host = options_.address.host;

  addrinfo hints = {};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  in6_addr scratch;
  if (::inet_pton(AF_INET, host.c_str(), &scratch) == 1 ||
      ::inet_pton(AF_INET6, host.c_str(), &scratch) == 1) {
    hints.ai_flags |= AI_NUMERICHOST;  // a literal is never looked up
  }
  addrinfo* found = nullptr;
  const std::string port = std::to_string(options_.address.port);
  if (int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    return absl::UnavailableError("cannot listen on " + where + ": cannot resolve '" + host +
                                  "': " + ::gai_strerror(rc));
  }
  std::vector<const addrinfo*> candidates;
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) candidates.push_back(a);
  // One socket only: "localhost" is listed as ::1 and 127.0.0.1, and
  // scrape configs name it as 127.0.0.1 far more often than as [::1].
  std::stable_partition(candidates.begin(), candidates.end(),
                        [](const addrinfo* a) { return a->ai_family == AF_INET; });

  int fd = -1;
  std::string failure = "no address";
  int failure_errno = 0;
  for (const addrinfo* a : candidates) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      failure_errno = errno;
      failure = std::string("socket: ") + std::strerror(errno);
      continue;
    }
    // A restarted coordinator must rebind while old connections sit in
    // TIME_WAIT; Linux still refuses a second listener on the port.
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, SOMAXCONN) == 0) break;
    failure_errno = errno;
    failure = std::string("bind: ") + std::strerror(errno) + BindHint(errno);
    ::close(fd);
    fd = -1;
  }
  ::freeaddrinfo(found);
  if (fd < 0) {
    const std::string message = "cannot listen on " + where + ": " + failure;
    return failure_errno == EACCES ? absl::PermissionDeniedError(message)
                                   : absl::UnavailableError(message);
  }

  sockaddr_storage bound = {};
  socklen_t length = sizeof bound;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length) != 0) {
    const std::string message =
        "cannot listen on " + where + ": getsockname: " + std::strerror(errno);
    ::close(fd);
    return absl::InternalError(message);
  }
  port_ = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                            : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);

  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) {
    const std::string message = std::string("metrics server: eventfd: ") + std::strerror(errno);
    ::close(fd);
    return absl::InternalError(message);
  }
  listen_fd_ = fd;
  started_ = true;
  thread_ = std::thread(&MetricsServer::Run, this);
  return absl::OkStatus();
}

void MetricsServer::Stop() {
  if (thread_.joinable()) {
    const uint64_t one = 1;
    // Cannot fail but for EINTR: the counter is far from overflowing.
    while (::write(wake_fd_, &one, sizeof one) < 0 && errno == EINTR) {
    }
    thread_.join();
  }
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
  listen_fd_ = -1;
  wake_fd_ = -1;
}

void MetricsServer::Run() {
  ConnectionHandler handler(options_);
  std::vector<Connection> connections;
  std::vector<pollfd> fds;
  Clock::time_point accept_resume = Clock::time_point::min();
  const size_t max_connections = static_cast<size_t>(options_.max_connections);

  while (true) {
    Clock::time_point now = Clock::now();
    const bool room = connections.size() < max_connections;
    const bool accepting = room && now >= accept_resume;
    fds.clear();
    fds.push_back({wake_fd_, POLLIN, 0});
    fds.push_back({accepting ? listen_fd_ : -1, POLLIN, 0});  // poll() skips a negative fd
    Clock::time_point wake_at = Clock::time_point::max();
    if (room && !accepting) wake_at = accept_resume;
    for (const Connection& c : connections) {
      const bool writing = c.phase == Connection::Phase::kWriting;
      fds.push_back({c.fd, static_cast<short>(writing ? POLLOUT : POLLIN), 0});
      wake_at = std::min(wake_at, c.deadline);
    }
    int timeout_ms = -1;
    if (wake_at != Clock::time_point::max()) {
      const auto wait = std::chrono::ceil<std::chrono::milliseconds>(wake_at - now);
      timeout_ms = static_cast<int>(std::clamp<int64_t>(wait.count(), 0, 60'000));
    }

    if (::poll(fds.data(), fds.size(), timeout_ms) < 0) {
      if (errno != EINTR) ::usleep(10'000);  // ENOMEM: try again shortly
      continue;
    }
    if (fds[0].revents != 0) break;  // Stop()

    now = Clock::now();
    for (size_t i = 0; i < connections.size(); ++i) {
      if (fds[i + 2].revents != 0) handler.Service(connections[i], now);
    }
    if (accepting && fds[1].revents != 0) {
      while (connections.size() < max_connections) {
        const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0) {
          Connection c;
          c.fd = fd;
          c.deadline = now + options_.io_timeout;
          connections.push_back(std::move(c));
          continue;
        }
        if (errno == EINTR || errno == ECONNABORTED) continue;
        // Out of descriptors or memory: pending clients wait in the backlog.
        if (!Retryable(errno)) accept_resume = now + kAcceptBackoff;
        break;
      }
    }
    now = Clock::now();
    for (Connection& c : connections) {
      if (c.fd >= 0 && now >= c.deadline) handler.Expire(c, now);
    }
    std::erase_if(connections, [](const Connection& c) { return c.fd < 0; });
  }
  for (Connection& c : connections) Close(c);
}

}  // namespace iashim::metrics
