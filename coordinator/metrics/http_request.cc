#include "coordinator/metrics/http_request.h"

#include <vector>

namespace iashim::metrics {
namespace {

// RFC 9110 tchar: what a method or a header name is made of.
bool IsTokenChar(char c) {
  if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool IsToken(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsTokenChar(c)) return false;
  }
  return true;
}

// Visible ASCII: a request target has no spaces or control characters.
bool IsVisible(std::string_view s) {
  for (char c : s) {
    if (c <= 0x20 || c >= 0x7f) return false;
  }
  return true;
}

bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != prefix[i]) return false;
  }
  return true;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && StartsWithIgnoreCase(a, b);
}

HttpRequestError BadRequest(std::string reason) { return HttpRequestError{400, std::move(reason)}; }

// Lines of the head without their CRLF or LF; the empty last line excluded.
std::vector<std::string_view> SplitLines(std::string_view head) {
  std::vector<std::string_view> lines;
  while (!head.empty()) {
    const size_t lf = head.find('\n');
    std::string_view line = head.substr(0, lf);
    head = lf == std::string_view::npos ? std::string_view() : head.substr(lf + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
  }
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

}  // namespace

size_t FindHeadEnd(std::string_view data) {
  // The head ends at an empty line: LF followed by LF or by CRLF.
  for (size_t lf = data.find('\n'); lf != std::string_view::npos; lf = data.find('\n', lf + 1)) {
    if (lf + 1 < data.size() && data[lf + 1] == '\n') return lf + 2;
    if (lf + 2 < data.size() && data[lf + 1] == '\r' && data[lf + 2] == '\n') return lf + 3;
  }
  return std::string_view::npos;
}

std::variant<HttpRequest, HttpRequestError> ParseHttpRequestHead(std::string_view head) {
  std::vector<std::string_view> lines = SplitLines(head);
  // RFC 9112 2.2: empty lines before the request line are to be ignored.
  size_t first = 0;
  while (first < lines.size() && lines[first].empty()) ++first;
  if (first == lines.size()) return BadRequest("empty request");

  // Request line: METHOD SP TARGET SP HTTP/1.x, single spaces.
  const std::string_view request_line = lines[first];
  const size_t sp1 = request_line.find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : request_line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || request_line.find(' ', sp2 + 1) != std::string_view::npos) {
    return BadRequest("malformed request line");
  }
  const std::string_view method = request_line.substr(0, sp1);
  std::string_view target = request_line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = request_line.substr(sp2 + 1);
  if (!IsToken(method)) return BadRequest("malformed method");

  if (version.size() != 8 || version.substr(0, 5) != "HTTP/" || version[6] != '.' ||
      version[5] < '0' || version[5] > '9' || version[7] < '0' || version[7] > '9') {
    return BadRequest("malformed HTTP version");
  }
  if (version[5] != '1') return HttpRequestError{505, "only HTTP/1.0 and HTTP/1.1 are served"};

  HttpRequest request;
  request.method = std::string(method);
  request.minor_version = version[7] - '0';

  if (target.empty() || !IsVisible(target)) return BadRequest("malformed request target");
  // Absolute form ("http://host:port/metrics"), which RFC 9112 3.2.2 says a
  // server must accept: keep only the path.
  for (std::string_view scheme : {"http://", "https://"}) {
    if (StartsWithIgnoreCase(target, scheme)) {
      target.remove_prefix(scheme.size());
      const size_t slash = target.find_first_of("/?");
      target = slash == std::string_view::npos ? std::string_view("/") : target.substr(slash);
      if (target.front() == '?') return BadRequest("malformed request target");
    }
  }
  if (target.front() != '/') return BadRequest("malformed request target");
  const size_t question = target.find('?');
  request.path = std::string(target.substr(0, question));
  if (question != std::string_view::npos) request.query = std::string(target.substr(question + 1));

  int hosts = 0;
  for (size_t i = first + 1; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    if (line.empty()) return BadRequest("malformed header");
    // Obsolete line folding (RFC 9112 5.2): refused, not unfolded.
    if (line.front() == ' ' || line.front() == '\t') return BadRequest("folded header line");
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) return BadRequest("header line without ':'");
    // No whitespace before the colon (RFC 9112 5.1): the name must be a token.
    if (!IsToken(line.substr(0, colon))) return BadRequest("malformed header name");
    for (char c : line.substr(colon + 1)) {
      const auto u = static_cast<unsigned char>(c);
      if ((u < 0x20 && c != '\t') || u == 0x7f) return BadRequest("control character in header");
    }
    if (EqualsIgnoreCase(line.substr(0, colon), "host")) ++hosts;
  }
  // RFC 9112 3.2: an HTTP/1.1 request has exactly one Host header.
  if (request.minor_version >= 1 && hosts != 1) {
    return BadRequest(hosts == 0 ? "missing Host header" : "more than one Host header");
  }
  if (hosts > 1) return BadRequest("more than one Host header");
  return request;
}

}  // namespace iashim::metrics
