#include "coordinator/daemon/job_token.h"

#include <errno.h>
#include <sys/random.h>

#include <cstdint>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace iashim::daemon {

absl::StatusOr<std::string> NewJobToken() {
  uint8_t bytes[kJobTokenHexDigits / 2];
  size_t got = 0;
  while (got < sizeof(bytes)) {
    const ssize_t n = getrandom(bytes + got, sizeof(bytes) - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::UnavailableError(absl::StrCat("getrandom: ", std::strerror(errno)));
    }
    got += size_t(n);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  token.reserve(kJobTokenHexDigits);
  for (uint8_t b : bytes) {
    token += kHex[b >> 4];
    token += kHex[b & 0xf];
  }
  return token;
}

bool SameToken(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace iashim::daemon
