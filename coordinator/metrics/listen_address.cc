#include "coordinator/metrics/listen_address.h"

#include <arpa/inet.h>

#include <string>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"

namespace iashim::metrics {
namespace {



// RFC 1123 host names: dot-separated labels of letters, digits and '-', each
// 1..63 long and not starting or ending with '-'; 253 in all.
bool ValidHostName(std::string_view host) {
  if (host.empty() || host.size() > 253) return false;
  size_t start = 0;
  while (true) {
    const size_t dot = host.find('.', start);
    const std::string_view label =
        host.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') {
      return false;
    }
    for (char c : label) {
      if (!absl::ascii_isalnum(c) && c != '-') return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

}  // namespace

std::string ListenAddress::ToString() const {
  const std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return h + ":" + std::to_string(port);
}

absl::StatusOr<ListenAddress> ParseListenAddress(std::string_view text) {
  const std::string t(text);
  auto error = [&t](const std::string& why) {
    return absl::InvalidArgumentError("invalid listen address '" + t + "': " + why);
  };
  std::string_view host;
  std::string_view port;
  if (!text.empty() && text.front() == '[') {
    const size_t close = text.find(']');
    if (close == std::string_view::npos) return error("missing ']' after the IPv6 address");
    host = text.substr(1, close - 1);
    if (close + 1 >= text.size() || text[close + 1] != ':') {
      return error("expected ':PORT' after ']'");
    }
    port = text.substr(close + 2);
    // inet_pton reads a C string: a NUL inside would hide what follows it.
    in6_addr v6;
    if (host.find_first_not_of("0123456789abcdefABCDEF:.") != std::string_view::npos ||
        ::inet_pton(AF_INET6, std::string(host).c_str(), &v6) != 1) {
      return error("'" + std::string(host) + "' is not an IPv6 address");
    }
  } else {
    const size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) {
      return error("expected HOST:PORT, such as 127.0.0.1:9400");
    }
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (host.empty()) {
      return error("missing HOST before ':' (0.0.0.0 listens on every interface)");
    }
    if (host.find(':') != std::string_view::npos) {
      return error("an IPv6 address goes in brackets, such as [::1]:9400");
    }
    // All digits and dots: meant as an IPv4 address, never looked up in DNS.
    if (host.find_first_not_of("0123456789.") == std::string_view::npos) {
      in_addr v4;
      if (::inet_pton(AF_INET, std::string(host).c_str(), &v4) != 1) {
        return error("'" + std::string(host) + "' is not an IPv4 address");
      }
    } else if (!ValidHostName(host)) {
      return error("'" + std::string(host) + "' is not a valid host name");
    }
  }
  if (port.empty()) return error("missing PORT after ':'");
  uint32_t value = 0;
  for (char c : port) {
    if (!absl::ascii_isdigit(c) || port.size() > 5) return error("PORT must be a number 0..65535");
    value = value * 10 + static_cast<uint32_t>(c - '0');
  }
  if (value > 65535) return error("PORT must be a number 0..65535");
  return ListenAddress{std::string(host), static_cast<uint16_t>(value)};
}

}  // namespace iashim::metrics
