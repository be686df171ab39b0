#include "coordinator/daemon/zap_handler.h"

#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/security/z85_key.h"

namespace iashim::daemon {
namespace {

constexpr char kZapEndpoint[] = "inproc://zeromq.zap.01";
// version, request id, domain, address, routing id, mechanism; then credentials.
constexpr size_t kRequestFrames = 6;

std::string Text(const zmq::message_t& m) { return std::string(m.data<char>(), m.size()); }

}  // namespace

absl::StatusOr<std::unique_ptr<ZapHandler>> ZapHandler::Start(
    zmq::context_t& context, const std::vector<std::string>& admin_keys) {
  std::unique_ptr<ZapHandler> handler(new ZapHandler(context));
  for (const std::string& z85 : admin_keys) {
    std::string why;
    Key key;
    if (!security::ValidZ85Key(z85, &why) || zmq_z85_decode(key.data(), z85.c_str()) == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("admin key '", z85, "' ", why));
    }
    handler->admin_keys_.push_back(key);
  }
  try {
    handler->socket_.set(zmq::sockopt::linger, 0);
    handler->socket_.bind(kZapEndpoint);
  } catch (const zmq::error_t& e) {
    return absl::UnavailableError(absl::StrCat("cannot start the ZAP handler: ", e.what()));
  }
  return handler;
}

void ZapHandler::HandlePending() {
  while (true) {
    std::vector<zmq::message_t> frames;
    zmq::message_t frame;
    if (!socket_.recv(frame, zmq::recv_flags::dontwait)) return;
    frames.push_back(std::move(frame));
    while (frames.back().more()) {
      zmq::message_t next;
      if (!socket_.recv(next, zmq::recv_flags::none)) break;
      frames.push_back(std::move(next));
    }
    // The request id is echoed; everything else decides the answer.
    const std::string request_id = frames.size() > 1 ? Text(frames[1]) : "";
    std::string status = "400";
    std::string reason = "malformed ZAP request";
    std::string user_id;
    if (frames.size() >= kRequestFrames && Text(frames[0]) == "1.0") {
      const std::string mechanism = Text(frames[5]);
      if (mechanism != "CURVE") {
        reason = "only CURVE clients are accepted";
      } else if (frames.size() != kRequestFrames + 1 || frames[6].size() != 32) {
        reason = "a CURVE request carries one 32-byte key";
      } else {
        status = "200";
        reason = "OK";
        for (const Key& admin : admin_keys_) {
          if (std::memcmp(admin.data(), frames[6].data(), admin.size()) == 0) {
            user_id = kAdminUserId;
            ++admins_;
            break;
          }
        }
      }
    }
    ++(status == "200" ? accepted_ : refused_);
    try {
      socket_.send(zmq::str_buffer("1.0"), zmq::send_flags::sndmore);
      socket_.send(zmq::buffer(request_id), zmq::send_flags::sndmore);
      socket_.send(zmq::buffer(status), zmq::send_flags::sndmore);
      socket_.send(zmq::buffer(reason), zmq::send_flags::sndmore);
      socket_.send(zmq::buffer(user_id), zmq::send_flags::sndmore);
      socket_.send(zmq::str_buffer(""), zmq::send_flags::none);
    } catch (const zmq::error_t&) {
      return;  // the context is closing
    }
  }
}

bool FromAdmin(const zmq::message_t& message) {
  // const_cast: zmq_msg_gets reads only, but takes a non-const pointer.
  const char* user = zmq_msg_gets(const_cast<zmq_msg_t*>(message.handle()), "User-Id");
  return user != nullptr && std::strcmp(user, kAdminUserId) == 0;
}

}  // namespace iashim::daemon
