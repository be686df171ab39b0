// The request head of HTTP/1.1 (RFC 9112), parsed strictly enough that
// nothing malformed reaches the handler and leniently where RFC 9112 allows
// it (bare LF line ends, absolute-form targets). Pure: the server does the I/O.
#ifndef IASHIM_COORDINATOR_METRICS_HTTP_REQUEST_H_
#define IASHIM_COORDINATOR_METRICS_HTTP_REQUEST_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>

namespace iashim::metrics {

struct HttpRequest {
  std::string method;     // "GET", case-sensitive as RFC 9110 says
  std::string path;       // "/metrics": the target without query, scheme or authority
  std::string query;      // what followed '?', without it
  int minor_version = 1;  // HTTP/1.<minor_version>
};

// Why a head was refused and what to answer.
struct HttpRequestError {
  int status = 400;    // 400 Bad Request or 505 HTTP Version Not Supported
  std::string reason;  // for the response body, e.g. "missing Host header"
};

// The length of the head in `data` (request line, headers and the empty line
// that ends them), or std::string_view::npos while it is incomplete.
size_t FindHeadEnd(std::string_view data);

// Parses a complete head as FindHeadEnd delimits it. The body, if any, is not
// looked at: the server answers and closes the connection.
std::variant<HttpRequest, HttpRequestError> ParseHttpRequestHead(std::string_view head);

}  // namespace iashim::metrics

#endif  // IASHIM_COORDINATOR_METRICS_HTTP_REQUEST_H_
