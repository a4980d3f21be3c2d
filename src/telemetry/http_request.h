// The request head parser of the /metrics server (telemetry/server.h): one
// HTTP/1.1 request line and its header fields, read from the front of what a
// connection has sent so far. Pure (bytes in, a value out), so the server,
// its unit tests and the fuzz target tests/fuzz/http_request_fuzz.cpp share it.
//
// Accepted: GET/HEAD-style request lines (any token method; the server
// answers 405 to the others), origin-form targets ("/metrics?x=1") and
// absolute-form ones ("http://host:9400/metrics", RFC 9112 section 3.2.2,
// whose authority is this server whatever name the client used). Refused
// with a status and a reason: a body (Content-Length other than 0, any
// Transfer-Encoding: the server never guesses where the next request
// starts), control bytes, a field without a name, too many fields, a head
// over the cap, a version other than HTTP/1.0 and HTTP/1.1.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace rooftop::telemetry {

struct RequestHead {
  int status = 0;             // 0: a request to route; else the 4xx/5xx to answer before closing
  std::string reason;         // why `status` (one line), for the answer's body
  std::size_t consumed = 0;   // bytes of the input this head and its blank line used
  std::string method;         // "GET"
  std::string path;           // "/metrics": the target's path, without query (absolute form: its path part)
  std::string authorization;  // the Authorization field's value; empty when absent
  bool close_after = false;   // HTTP/1.0 without keep-alive, or Connection: close
};

// Most header fields one head may carry.
inline constexpr std::size_t kMaxHeaderFields = 100;

// The head at the front of `in`; nullopt while it is incomplete and within
// `max_request_bytes` (wait for more bytes). A head over the cap is 431.
std::optional<RequestHead> parse_request_head(std::string_view in, std::size_t max_request_bytes);

}  // namespace rooftop::telemetry
