#include "common/security/loopback.h"

namespace iashim::security {
namespace {

// 0-255 written in decimal, 1-3 digits.
bool IsOctet(std::string_view s) {
  if (s.empty() || s.size() > 3) return false;
  int value = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  return value <= 255;
}

// 127.A.B.C: four dotted octets, the first 127 (all of 127/8 is loopback).
bool IsLoopbackIpv4(std::string_view host) {
  int parts = 0;
  size_t start = 0;
  while (true) {
    const size_t dot = host.find('.', start);
    const std::string_view part =
        host.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (!IsOctet(part)) return false;
    if (parts == 0 && part != "127") return false;
    ++parts;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts == 4;
}

}  // namespace

bool IsLoopbackHost(std::string_view host) {
  return host == "localhost" || host == "[::1]" || host == "::1" || IsLoopbackIpv4(host);
}

bool IsLoopbackEndpoint(std::string_view endpoint) {
  if (endpoint.starts_with("ipc://") || endpoint.starts_with("inproc://")) return true;
  constexpr std::string_view kTcp = "tcp://";
  if (!endpoint.starts_with(kTcp)) return false;
  const std::string_view address = endpoint.substr(kTcp.size());
  // "source;destination": a connect from a chosen interface; judge nothing
  // that has one.
  if (address.find(';') != std::string_view::npos) return false;
  const size_t colon = address.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == address.size()) return false;
  for (char c : address.substr(colon + 1)) {
    if (c < '0' || c > '9') return false;
  }
  return IsLoopbackHost(address.substr(0, colon));
}

}  // namespace iashim::security
