// HOST:PORT as --metrics takes it: "127.0.0.1:9400", "[::1]:9400",
// "localhost:9400", "0.0.0.0:0". Checked before anything binds, so a typo is
// reported as a typo, not as whatever bind() or DNS make of it.
#ifndef IASHIM_COORDINATOR_METRICS_LISTEN_ADDRESS_H_
#define IASHIM_COORDINATOR_METRICS_LISTEN_ADDRESS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace iashim::metrics {

struct ListenAddress {
  std::string host;   // an IPv4 or IPv6 literal (without brackets) or a host name
  uint16_t port = 0;  // 0: the kernel picks a free port

  // "127.0.0.1:9400", "[::1]:9400".
  std::string ToString() const;
};

// HOST is an IPv4 address, an IPv6 address in brackets, or a DNS host name;
// PORT is 0..65535. InvalidArgument naming the text and the problem otherwise.
absl::StatusOr<ListenAddress> ParseListenAddress(std::string_view text);

}  // namespace iashim::metrics

#endif  // IASHIM_COORDINATOR_METRICS_LISTEN_ADDRESS_H_
