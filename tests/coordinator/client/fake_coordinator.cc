#include "tests/coordinator/client/fake_coordinator.h"

#include <stdlib.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <zmq.hpp>

#include "flatbuffers/flatbuffers.h"

// libzmq is not built with TSan: messages pass between the test's threads and
// ZeroMQ's I/O threads through libzmq's own lock-free pipes, which TSan cannot
// see (as in tests/libiashim/unit/transport_test.cc).
extern "C" const char* __tsan_default_suppressions() { return "race:libzmq.so\n"; }

namespace iashim::client::testing {
namespace {

std::string Str(const flatbuffers::String* s) { return s == nullptr ? std::string() : s->str(); }

// Verifies and decodes; false for anything a coordinator would drop.
bool Decode(const zmq::message_t& msg, SeenRequest* out) {
  std::vector<uint64_t> aligned(msg.size() / sizeof(uint64_t) + 1);
  std::memcpy(aligned.data(), msg.data(), msg.size());
  const auto* bytes = reinterpret_cast<const uint8_t*>(aligned.data());
  flatbuffers::Verifier verifier(bytes, msg.size());
  if (!wire::VerifyEnvelopeBuffer(verifier)) return false;
  const wire::Envelope* envelope = wire::GetEnvelope(bytes);
  if (envelope->version() != wire::Version::Current) return false;
  out->type = envelope->payload_type();
  out->pid = envelope->pid();
  if (const wire::PlaceRequest* r = envelope->payload_as_PlaceRequest(); r != nullptr) {
    out->job = Str(r->job());
    out->priority = r->priority();
    out->mem_bytes = r->mem_bytes();
    out->gpu = r->gpu();
    out->host = Str(r->host());
    out->command = Str(r->command());
    out->slowdown_target = r->slowdown_target();
    out->dry_run = r->dry_run();
    out->guaranteed_gres = r->guaranteed_gres();
    out->gpus = r->gpus();
  }
  if (const wire::ReleaseRequest* r = envelope->payload_as_ReleaseRequest(); r != nullptr) {
    out->job = Str(r->job());
    out->token = Str(r->token());
  }
  return true;
}

}  // namespace

TempDir::TempDir() {
  // ipc:// paths are limited to about 107 bytes: stay short, under /tmp.
  char templ[] = "/tmp/iashim-cli-XXXXXX";
  if (mkdtemp(templ) == nullptr) std::abort();
  path_ = templ;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

FakeCoordinator::FakeCoordinator(Responder responder, bool with_delimiter)
    : responder_(std::move(responder)), with_delimiter_(with_delimiter) {
  char templ[] = "/tmp/iashim-fake-XXXXXX";
  if (mkdtemp(templ) == nullptr) std::abort();
  dir_ = templ;
  endpoint_ = "ipc://" + dir_ + "/coordinator";
  thread_ = std::thread([this] { Serve(); });
  // Bound before the constructor returns, so a client started next finds it.
  while (!ready_.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

FakeCoordinator::~FakeCoordinator() {
  stop_.store(true);
  thread_.join();
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

std::vector<SeenRequest> FakeCoordinator::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

bool FakeCoordinator::WaitForRequests(size_t n, double timeout_s) const {
  const auto end = std::chrono::steady_clock::now() +
                   std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                       std::chrono::duration<double>(timeout_s));
  while (std::chrono::steady_clock::now() < end) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (requests_.size() >= n) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

void FakeCoordinator::Serve() {
  zmq::context_t context(1);
  zmq::socket_t socket(context, zmq::socket_type::router);
  socket.set(zmq::sockopt::linger, 0);
  socket.bind(endpoint_);
  ready_.store(true);
  int n = 0;
  while (!stop_.load()) {
    zmq::pollitem_t items[] = {{socket.handle(), 0, ZMQ_POLLIN, 0}};
    zmq::poll(items, 1, std::chrono::milliseconds(20));
    if ((items[0].revents & ZMQ_POLLIN) == 0) continue;
    zmq::message_t id, msg;
    if (!socket.recv(id, zmq::recv_flags::dontwait)) continue;
    // A DEALER sends one frame after the routing id; keep the last one.
    bool more = id.more();
    while (more) {
      if (!socket.recv(msg)) break;
      more = msg.more();
    }
    SeenRequest request;
    if (!Decode(msg, &request)) continue;  // as the coordinator does: drop it
    {
      std::lock_guard<std::mutex> lock(mu_);
      requests_.push_back(request);
    }
    for (const Bytes& reply : responder_(request, n)) {
      socket.send(zmq::buffer(id.data(), id.size()), zmq::send_flags::sndmore);
      if (with_delimiter_) socket.send(zmq::const_buffer(), zmq::send_flags::sndmore);
      socket.send(zmq::buffer(reply.data(), reply.size()));
    }
    ++n;
  }
}

}  // namespace iashim::client::testing
