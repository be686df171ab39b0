#include "coordinator/client/coordinator_client.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <zmq.hpp>

#include "absl/strings/str_format.h"
#include "common/wire/envelope.h"
#include "flatbuffers/flatbuffers.h"

namespace iashim::client {
namespace {

using Clock = std::chrono::steady_clock;

// How often a wait looks at `interrupted`: short enough that Ctrl-C feels
// immediate even when the signal lands outside zmq::poll.
constexpr auto kPollSlice = std::chrono::milliseconds(100);

// A snapshot of a large cluster is some hundreds of KiB; anything far past
// this is not a reply, and ZeroMQ drops the peer before we allocate it.
constexpr int64_t kMaxReplyBytes = int64_t{64} << 20;

struct Seen {
  int invalid = 0;
  int unexpected = 0;
  int wrong_version = 0;
  unsigned last_version = 0;
};

std::string NoReplyDetail(const Seen& seen, double timeout_s) {
  if (seen.wrong_version > 0) {
    return absl::StrFormat("it speaks protocol version %u, this iashim speaks %u",
                           seen.last_version, static_cast<unsigned>(wire::Version::Current));
  }
  std::string detail = "no reply in " + FormatSeconds(timeout_s);
  if (seen.invalid > 0) {
    detail += absl::StrFormat("; %d message%s failed verification", seen.invalid,
                              seen.invalid == 1 ? "" : "s");
  }
  if (seen.unexpected > 0) {
    detail += absl::StrFormat("; %d unrelated message%s ignored", seen.unexpected,
                              seen.unexpected == 1 ? "" : "s");
  }
  return detail;
}

// Receives every frame of one message and keeps the last non-empty one: a
// coordinator answering a REQ-style envelope puts an empty delimiter first.
bool ReceiveMessage(zmq::socket_t& socket, Reply* out) {
  zmq::message_t frame;
  bool got = false;
  while (true) {
    if (!socket.recv(frame, zmq::recv_flags::dontwait)) return got;
    if (frame.size() > 0) {
      *out = Reply(frame.data(), frame.size());
      got = true;
    }
    if (!frame.more()) return got;
  }
}

}  // namespace

Reply::Reply(const void* data, size_t size) : words_(size / sizeof(uint64_t) + 1), size_(size) {
  std::memcpy(words_.data(), data, size);
}

ReplyCheck CheckReply(const Reply& reply, wire::Payload expected) {
  std::vector<uint64_t> storage;  // stays empty: a Reply is aligned
  const wire::OpenedEnvelope in = wire::OpenEnvelope(reply.data(), reply.size(), &storage);
  switch (in.error) {
    case wire::EnvelopeError::kNone: break;
    case wire::EnvelopeError::kInvalid: return ReplyCheck::kInvalid;
    case wire::EnvelopeError::kWrongVersion: return ReplyCheck::kWrongVersion;
  }
  const wire::Payload type = in.envelope->payload_type();
  if (type != expected && type != wire::Payload::ErrorReply) return ReplyCheck::kUnexpected;
  return ReplyCheck::kUsable;
}

std::string FormatSeconds(double seconds) { return absl::StrFormat("%g s", seconds); }

RequestResult Request(const RequestSpec& spec) {
  RequestResult result;
  Seen seen;
  try {
    zmq::context_t context(1);
    zmq::socket_t socket(context, zmq::socket_type::dealer);
    // Nothing is worth keeping once we stop waiting; exit at once.
    socket.set(zmq::sockopt::linger, 0);
    socket.set(zmq::sockopt::maxmsgsize, kMaxReplyBytes);
    if (std::string error; !security::ApplyClientKeys(socket.handle(), spec.keys, &error)) {
      result.status = RequestStatus::kBadEndpoint;
      result.detail = "CurveZMQ: " + error;
      return result;
    }
    try {
      socket.connect(spec.endpoint);
    } catch (const zmq::error_t& e) {
      result.status = RequestStatus::kBadEndpoint;
      result.detail = e.what();
      return result;
    }
    // Without ZMQ_IMMEDIATE the DEALER queues this until the connection is
    // up, so a coordinator that starts a moment later still gets it.
    if (!socket.send(zmq::const_buffer(spec.request.data(), spec.request.size()),
                     zmq::send_flags::dontwait)) {
      result.detail = "the request could not be queued";
      return result;
    }
    const auto timeout =
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(spec.timeout_s));
    const Clock::time_point deadline = Clock::now() + timeout;
    while (true) {
      if (spec.interrupted && spec.interrupted()) {
        result.status = RequestStatus::kInterrupted;
        return result;
      }
      const Clock::time_point now = Clock::now();
      if (now >= deadline) break;
      const auto wait = std::min<Clock::duration>(deadline - now, kPollSlice);
      zmq::pollitem_t items[] = {{socket.handle(), 0, ZMQ_POLLIN, 0}};
      try {
        zmq::poll(items, 1, std::chrono::ceil<std::chrono::milliseconds>(wait));
      } catch (const zmq::error_t& e) {
        if (e.num() == EINTR) continue;  // a signal: look at `interrupted` again
        throw;
      }
      if ((items[0].revents & ZMQ_POLLIN) == 0) continue;
      Reply reply;
      while (ReceiveMessage(socket, &reply)) {
        switch (CheckReply(reply, spec.expected)) {
          case ReplyCheck::kUsable:
            result.status = RequestStatus::kOk;
            result.reply = std::move(reply);
            return result;
          case ReplyCheck::kInvalid:
            ++seen.invalid;
            break;
          case ReplyCheck::kWrongVersion:
            ++seen.wrong_version;
            seen.last_version = static_cast<unsigned>(reply.envelope()->version());
            break;
          case ReplyCheck::kUnexpected:
            ++seen.unexpected;
            break;
        }
      }
    }
  } catch (const zmq::error_t& e) {
    result.status = RequestStatus::kNoReply;
    result.detail = std::string("ZeroMQ: ") + e.what();
    return result;
  }
  result.status = RequestStatus::kNoReply;
  result.detail = NoReplyDetail(seen, spec.timeout_s);
  return result;
}

}  // namespace iashim::client
