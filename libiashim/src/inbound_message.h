// What the shim does with one message from the coordinator, without the
// socket: verify it, check its version, and hand a Budget or an Advice to its
// handler. Pure, so the fuzzer and the unit tests drive it on bytes alone;
// Transport::Receive feeds it what arrives on the socket.
#ifndef IASHIM_INBOUND_MESSAGE_H_
#define IASHIM_INBOUND_MESSAGE_H_

#include <cstddef>
#include <cstdint>
#include <functional>

namespace iashim {

namespace wire {
struct Budget;
struct Advice;
}  // namespace wire

// How one message was taken.
enum class InboundKind {
  kInvalid,  // failed the FlatBuffers Verifier
  kIgnored,  // a version we do not speak, or a payload that is not for a shim
  kBudget,   // handed to on_budget
  kAdvice,   // handed to on_advice
};

// `data` must be 8-byte aligned (FlatBuffers reads aligned words): copy a
// ZeroMQ message into an aligned buffer first. Either handler may be empty;
// they see the message only for the duration of the call.
InboundKind DispatchInbound(const uint8_t* data, size_t size,
                            const std::function<void(const wire::Budget&)>& on_budget,
                            const std::function<void(const wire::Advice&)>& on_advice);

}  // namespace iashim

#endif  // IASHIM_INBOUND_MESSAGE_H_
