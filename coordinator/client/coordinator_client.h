// One request to the coordinator and its reply, with a deadline: a DEALER
// socket to the coordinator's ROUTER, one Envelope out, the first usable
// Envelope back.
//
// Every call uses a fresh socket. The protocol has no request ids, so a reply
// that arrives after its deadline would otherwise be taken as the answer to
// the next request (`iashim run` asks again every 2 s while queued).
#ifndef IASHIM_COORDINATOR_CLIENT_COORDINATOR_CLIENT_H_
#define IASHIM_COORDINATOR_CLIENT_COORDINATOR_CLIENT_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "common/security/curve_socket.h"
#include "schemas/telemetry_generated.h"

namespace iashim::client {

enum class RequestStatus {
  kOk,           // `reply` holds a verified Envelope of the expected payload or an ErrorReply
  kNoReply,      // nothing usable before the deadline (`detail` says what came, if anything)
  kBadEndpoint,  // ZeroMQ would not connect to the endpoint (`detail` says why)
  kInterrupted,  // `interrupted` returned true while waiting
};

// A verified reply, kept in 8-byte-aligned storage: FlatBuffers reads scalars
// as aligned words, and ZeroMQ keeps small messages inside the message object
// at any alignment.
class Reply {
 public:
  Reply() = default;
  Reply(const void* data, size_t size);

  const uint8_t* data() const { return reinterpret_cast<const uint8_t*>(words_.data()); }
  size_t size() const { return size_; }
  // Valid only for a Reply returned with kOk (it has been verified).
  const wire::Envelope* envelope() const { return wire::GetEnvelope(data()); }

 private:
  std::vector<uint64_t> words_;
  size_t size_ = 0;
};

struct RequestResult {
  RequestStatus status = RequestStatus::kNoReply;
  Reply reply;
  // For kNoReply and kBadEndpoint: a phrase for the user, e.g.
  // "no reply in 2 s" or "it speaks protocol version 2, this iashim 1".
  std::string detail;
};

// What the caller wants back; any other valid message (an Advice, say) is
// not an answer and is skipped.
struct RequestSpec {
  std::string endpoint;
  std::span<const uint8_t> request;  // a finished Envelope
  wire::Payload expected = wire::Payload::NONE;
  double timeout_s = 2.0;
  // CurveZMQ keys (none: plain text, for loopback endpoints).
  security::ClientKeys keys;
  // Polled at least every 100 ms; true ends the wait (Ctrl-C).
  std::function<bool()> interrupted;
};

RequestResult Request(const RequestSpec& spec);

// Whether `reply` is usable: it passes the FlatBuffers Verifier, speaks the
// current version, and holds the expected payload or an ErrorReply.
enum class ReplyCheck { kUsable, kInvalid, kWrongVersion, kUnexpected };
ReplyCheck CheckReply(const Reply& reply, wire::Payload expected);

// "2 s", "0.3 s": how timeouts appear in messages.
std::string FormatSeconds(double seconds);

}  // namespace iashim::client

#endif  // IASHIM_COORDINATOR_CLIENT_COORDINATOR_CLIENT_H_
