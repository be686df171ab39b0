#include "bench/load/coordinator_probe.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/wire/envelope.h"
#include "schemas/telemetry_generated.h"

namespace iashim::load {

CoordinatorProbe::CoordinatorProbe(zmq::context_t& context, const std::string& endpoint)
    : context_(context), endpoint_(endpoint) {}

absl::StatusOr<SnapshotView> CoordinatorProbe::Snapshot(int timeout_ms) {
  // A fresh socket per request: a late reply to an earlier, timed-out request
  // can then never be taken for this one's.
  socket_ = std::make_unique<zmq::socket_t>(context_, zmq::socket_type::dealer);
  socket_->set(zmq::sockopt::linger, 0);
  socket_->connect(endpoint_);
  flatbuffers::FlatBufferBuilder fbb(64);
  wire::FinishEnvelope(fbb, wire::Payload::StatusRequest, wire::CreateStatusRequest(fbb).Union());
  socket_->send(zmq::const_buffer(fbb.GetBufferPointer(), fbb.GetSize()), zmq::send_flags::none);
  zmq::pollitem_t item{socket_->handle(), 0, ZMQ_POLLIN, 0};
  zmq::poll(&item, 1, std::chrono::milliseconds(timeout_ms));
  zmq::message_t reply;
  if (!(item.revents & ZMQ_POLLIN) || !socket_->recv(reply, zmq::recv_flags::dontwait)) {
    return absl::DeadlineExceededError(
        absl::StrCat("no state snapshot from ", endpoint_, " within ", timeout_ms, " ms"));
  }
  std::vector<uint64_t> storage;
  const wire::OpenedEnvelope in = wire::OpenEnvelope(reply.data(), reply.size(), &storage);
  if (in.error != wire::EnvelopeError::kNone) {
    return absl::DataLossError("the coordinator's status reply failed verification");
  }
  const wire::StateSnapshot* s = in.envelope->payload_as_StateSnapshot();
  if (s == nullptr) return absl::DataLossError("the coordinator's status reply is not a snapshot");
  SnapshotView view;
  view.invalid_messages = s->invalid_messages();
  if (s->gpus() != nullptr) {
    for (const wire::GpuState* g : *s->gpus()) {
      if (g == nullptr || g->jobs() == nullptr) continue;
      for (const wire::JobState* j : *g->jobs()) {
        if (j == nullptr) continue;
        ++view.jobs;
        if (!j->connected()) continue;
        ++view.connected;
        view.connected_pids.insert(j->pid());
      }
    }
  }
  return view;
}

absl::StatusOr<std::map<std::string, double>> ScrapeMetrics(const std::string& host_port,
                                                           int timeout_ms) {
  const size_t colon = host_port.rfind(':');
  const std::string host = host_port.substr(0, colon);
  const std::string port = host_port.substr(colon + 1);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    return absl::UnavailableError(absl::StrCat("--metrics ", host_port, ": ", gai_strerror(rc)));
  }
  const int fd = socket(found->ai_family, found->ai_socktype, found->ai_protocol);
  const bool connected = fd >= 0 && connect(fd, found->ai_addr, found->ai_addrlen) == 0;
  freeaddrinfo(found);
  if (!connected) {
    if (fd >= 0) close(fd);
    return absl::UnavailableError(absl::StrCat("cannot connect to ", host_port, ": ", strerror(errno)));
  }
  const std::string request = absl::StrCat("GET /metrics HTTP/1.0\r\nHost: ", host, "\r\n\r\n");
  std::string response;
  bool ok = send(fd, request.data(), request.size(), MSG_NOSIGNAL) == ssize_t(request.size());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  char buffer[16384];
  while (ok) {
    const int left = int(std::chrono::duration_cast<std::chrono::milliseconds>(
                             deadline - std::chrono::steady_clock::now())
                             .count());
    pollfd p{fd, POLLIN, 0};
    if (left <= 0 || poll(&p, 1, left) <= 0) {
      ok = false;
      break;
    }
    const ssize_t n = recv(fd, buffer, sizeof buffer, 0);
    if (n < 0) ok = false;
    if (n <= 0) break;
    response.append(buffer, size_t(n));
    if (response.size() > (size_t{64} << 20)) ok = false;
  }
  close(fd);
  if (!ok) return absl::DeadlineExceededError(absl::StrCat("no /metrics from ", host_port));
  const size_t body = response.find("\r\n\r\n");
  if (!response.starts_with("HTTP/1.") || response.find(" 200 ") > response.find('\n') ||
      body == std::string::npos) {
    return absl::DataLossError(absl::StrCat("unexpected HTTP reply from ", host_port));
  }
  std::map<std::string, double> counters;
  const std::string text = response.substr(body + 4);
  for (size_t from = 0, to; from < text.size(); from = to + 1) {
    to = text.find('\n', from);
    if (to == std::string::npos) to = text.size();
    const std::string_view line = std::string_view(text).substr(from, to - from);
    // Counters only: the per-job gauges would be thousands of lines.
    if (line.empty() || line[0] == '#' || !line.starts_with("iashim_") ||
        line.find("_total") == std::string_view::npos) {
      continue;
    }
    const size_t space = line.rfind(' ');
    double value = 0;
    if (space == std::string_view::npos || !absl::SimpleAtod(std::string(line.substr(space + 1)), &value)) continue;
    counters[std::string(line.substr(0, space))] = value;
  }
  return counters;
}

}  // namespace iashim::load
