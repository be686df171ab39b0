#include "common/text/names.h"

#include <cctype>

#include "common/text/text.h"

namespace iashim {

bool ValidEndpoint(std::string_view e) {
  if (e.size() > 1024) return false;
  for (char c : e) {
    if (!std::isgraph(static_cast<unsigned char>(c))) return false;
  }
  if (e.starts_with("ipc://")) return e.size() > 6;
  if (!e.starts_with("tcp://")) return false;
  e.remove_prefix(6);
  const size_t colon = e.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  return ParseInt(e.substr(colon + 1), 1, 65535).has_value();
}

bool ValidConnectEndpoint(std::string_view e) {
  return ValidEndpoint(e) && !e.starts_with("tcp://*:");
}

bool ValidJobName(std::string_view job) {
  if (job.empty() || job.size() > 128) return false;
  for (char c : job) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' ||
                    c == '-' || c == ':' || c == '/' || c == '@' || c == '+';
    if (!ok) return false;
  }
  return true;
}

bool ValidJobToken(std::string_view token) {
  if (token.size() != 32) return false;
  for (char c : token) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

bool ValidModelKind(std::string_view kind) {
  if (kind.empty() || kind.size() > 128 || kind.front() == ' ' || kind.back() == ' ') return false;
  for (char c : kind) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

}  // namespace iashim
