#include "coordinator/metrics/http_request.h"

#include <string>
#include <variant>

#include "gtest/gtest.h"

namespace iashim::metrics {
namespace {

TEST(HttpRequestTest, FindsTheEndOfTheHead) {
  constexpr auto npos = std::string_view::npos;
  EXPECT_EQ(FindHeadEnd("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), 27u);
  EXPECT_EQ(FindHeadEnd("GET / HTTP/1.1\r\nHost: x\r\n\r\nbody"), 27u);
  EXPECT_EQ(FindHeadEnd("GET / HTTP/1.1\nHost: x\n\n"), 24u);
  EXPECT_EQ(FindHeadEnd("GET / HTTP/1.1\r\nHost: x\n\r\n"), 26u);
  EXPECT_EQ(FindHeadEnd("GET / HTTP/1.1\r\nHost: x\r\n"), npos);
  EXPECT_EQ(FindHeadEnd("GET / HTTP/1.1\r\nHost: x\r\n\r"), npos);
  EXPECT_EQ(FindHeadEnd(""), npos);
}

HttpRequest Parse(std::string_view head) {
  std::variant<HttpRequest, HttpRequestError> r = ParseHttpRequestHead(head);
  if (auto* e = std::get_if<HttpRequestError>(&r)) {
    ADD_FAILURE() << "refused (" << e->status << " " << e->reason << "): " << head;
    return {};
  }
  return std::get<HttpRequest>(r);
}

TEST(HttpRequestTest, ParsesRequests) {
  HttpRequest r = Parse("GET /metrics HTTP/1.1\r\nHost: localhost:9400\r\nAccept: */*\r\n\r\n");
  EXPECT_EQ(r.method, "GET");
  EXPECT_EQ(r.path, "/metrics");
  EXPECT_EQ(r.query, "");
  EXPECT_EQ(r.minor_version, 1);

  r = Parse("HEAD /metrics?name[]=up&x HTTP/1.0\n\n");
  EXPECT_EQ(r.method, "HEAD");
  EXPECT_EQ(r.path, "/metrics");
  EXPECT_EQ(r.query, "name[]=up&x");
  EXPECT_EQ(r.minor_version, 0);

  r = Parse("\r\nGET http://Head:9400/metrics?a=b HTTP/1.1\r\nhost:\tHead:9400 \r\n\r\n");
  EXPECT_EQ(r.path, "/metrics");
  EXPECT_EQ(r.query, "a=b");
  EXPECT_EQ(Parse("GET HTTP://head HTTP/1.1\r\nHost: head\r\n\r\n").path, "/");
}

TEST(HttpRequestTest, RefusesMalformedHeads) {
  struct Case {
    const char* head;
    int status;
    const char* reason;
  };
  for (const Case& c : {
           Case{"\r\n\r\n", 400, "empty request"},
           Case{"hello\r\n\r\n", 400, "malformed request line"},
           Case{"GET /metrics\r\n\r\n", 400, "malformed request line"},
           Case{"GET  /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 400, "malformed request line"},
           Case{"GET /metrics HTTP/1.1 \r\nHost: x\r\n\r\n", 400, "malformed request line"},
           Case{"G(T /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 400, "malformed method"},
           Case{"GET metrics HTTP/1.1\r\nHost: x\r\n\r\n", 400, "malformed request target"},
           Case{"GET /a\x01 HTTP/1.1\r\nHost: x\r\n\r\n", 400, "malformed request target"},
           Case{"GET http://x?a HTTP/1.1\r\nHost: x\r\n\r\n", 400, "malformed request target"},
           Case{"GET /metrics FTP/1.1\r\nHost: x\r\n\r\n", 400, "malformed HTTP version"},
           Case{"GET /metrics HTTP/1.10\r\nHost: x\r\n\r\n", 400, "malformed HTTP version"},
           Case{"GET /metrics HTTP/2.0\r\nHost: x\r\n\r\n", 505,
                "only HTTP/1.0 and HTTP/1.1 are served"},
           Case{"GET /metrics HTTP/1.1\r\n\r\n", 400, "missing Host header"},
           Case{"GET /metrics HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n", 400,
                "more than one Host header"},
           Case{"GET /metrics HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n", 400,
                "more than one Host header"},
           Case{"GET /metrics HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n", 400,
                "header line without ':'"},
           Case{"GET /metrics HTTP/1.1\r\nHost : x\r\n\r\n", 400, "malformed header name"},
           Case{"GET /metrics HTTP/1.1\r\nHost: x\r\nA: b\r\n  c\r\n\r\n", 400,
                "folded header line"},
           Case{"GET /metrics HTTP/1.1\r\nHost: x\r\nA: b\x7f\r\n\r\n", 400,
                "control character in header"},
           Case{"GET /metrics HTTP/1.1\r\nHost: x\rA: b\r\n\r\n", 400,
                "control character in header"},
       }) {
    std::variant<HttpRequest, HttpRequestError> r = ParseHttpRequestHead(c.head);
    const auto* e = std::get_if<HttpRequestError>(&r);
    ASSERT_NE(e, nullptr) << "accepted: " << c.head;
    EXPECT_EQ(e->status, c.status) << c.head;
    EXPECT_EQ(e->reason, c.reason) << c.head;
  }
}

}  // namespace
}  // namespace iashim::metrics
