// The metrics endpoint's HTTP request head parser
// (coordinator/metrics/http_request.h), as the server uses it: FindHeadEnd on
// what arrived, then ParseHttpRequestHead on the head it delimits.
#include <cstdint>
#include <variant>

#include "coordinator/metrics/http_request.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iashim;
  using namespace iashim::metrics;
  const std::string_view text = fuzz::AsText(data, size);
  const size_t end = FindHeadEnd(text);
  if (end != std::string_view::npos && end > text.size()) fuzz::Fail("head end past the data");
  const std::string_view head = end == std::string_view::npos ? text : text.substr(0, end);
  const auto parsed = ParseHttpRequestHead(head);
  if (const auto* error = std::get_if<HttpRequestError>(&parsed)) {
    if (error->status != 400 && error->status != 505) fuzz::Fail("an unexpected error status");
    if (error->reason.empty()) fuzz::Fail("an error without a reason");
  } else {
    const HttpRequest& r = std::get<HttpRequest>(parsed);
    if (r.method.empty()) fuzz::Fail("a request without a method");
    if (r.path.empty() || r.path.front() != '/') fuzz::Fail("a path not starting with '/'");
  }
  return 0;
}
