// The /metrics server's request head parser: origin and absolute forms,
// pipelining, refusals with a reason.
#include <gtest/gtest.h>

#include "telemetry/http_request.h"

namespace rooftop::telemetry {
namespace {

RequestHead parse(std::string_view in, std::size_t cap = 8192) {
  auto r = parse_request_head(in, cap);
  EXPECT_TRUE(r) << "incomplete: " << in;
  return r.value_or(RequestHead{});
}

TEST(HttpRequest, OriginFormWithQueryAndHeaders) {
  const RequestHead r = parse("GET /metrics?name[]=up HTTP/1.1\r\nHost: x\r\nAuthorization: Basic YQ==\r\n\r\n");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.method, "GET");
  EXPECT_EQ(r.path, "/metrics");
  EXPECT_EQ(r.authorization, "Basic YQ==");
  EXPECT_FALSE(r.close_after);
}

// RFC 9112 section 3.2.2: a server must accept the absolute form (what a
// client sends through a proxy); its path is what is served.
TEST(HttpRequest, AbsoluteFormIsServedByItsPath) {
  EXPECT_EQ(parse("GET http://node-1.example:9400/metrics HTTP/1.1\r\nHost: node-1.example:9400\r\n\r\n").path,
            "/metrics");
  EXPECT_EQ(parse("HEAD HTTPS://[::1]:9400/healthz?x=1 HTTP/1.1\r\n\r\n").path, "/healthz");
  EXPECT_EQ(parse("GET http://127.0.0.1:9400 HTTP/1.1\r\n\r\n").path, "/");
  EXPECT_EQ(parse("GET http://127.0.0.1:9400?x HTTP/1.1\r\n\r\n").path, "/");
}

TEST(HttpRequest, BadAbsoluteFormsAre400WithAReason) {
  for (const char* target : {"ftp://h/metrics", "http:///metrics", "http://user:pw@h/metrics", "http://h#frag", "metrics",
                             "*"}) {
    const RequestHead r = parse(std::string("GET ") + target + " HTTP/1.1\r\n\r\n");
    EXPECT_EQ(r.status, 400) << target;
    EXPECT_FALSE(r.reason.empty()) << target;
    EXPECT_TRUE(r.close_after);
  }
  EXPECT_NE(parse("GET ftp://h/metrics HTTP/1.1\r\n\r\n").reason.find("'ftp'"), std::string::npos);
}

TEST(HttpRequest, PipelinedHeadsAreConsumedOneByOne) {
  const std::string two = "GET /metrics HTTP/1.1\r\n\r\nGET /healthz HTTP/1.0\r\n\r\n";
  const RequestHead first = parse(two);
  EXPECT_EQ(first.consumed, 25u);
  const RequestHead second = parse(std::string_view(two).substr(first.consumed));
  EXPECT_EQ(second.path, "/healthz");
  EXPECT_TRUE(second.close_after);  // HTTP/1.0 without keep-alive
}

TEST(HttpRequest, IncompleteHeadsWaitUntilTheCap) {
  EXPECT_FALSE(parse_request_head("GET /metrics HTTP/1.1\r\nHost: x\r\n", 1024));
  auto over = parse_request_head("GET /metrics HTTP/1.1\r\nX: " + std::string(2000, 'a'), 1024);
  ASSERT_TRUE(over);
  EXPECT_EQ(over->status, 431);
}

TEST(HttpRequest, BodiesControlBytesAndBadFieldsAreRefused) {
  EXPECT_EQ(parse("POST /metrics HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello").status, 400);
  EXPECT_EQ(parse("GET /metrics HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n").status, 400);
  EXPECT_EQ(parse("GET /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n").status, 0);
  EXPECT_EQ(parse("GET /metrics HTTP/1.1\r\nHost : x\r\n\r\n").status, 400);  // space before the colon
  EXPECT_EQ(parse("GET /metrics HTTP/1.1\r\nX: a\r\n folded\r\n\r\n").status, 400);
  EXPECT_EQ(parse("GET /metrics HTTP/1.1\r\n: x\r\n\r\n").status, 400);
  EXPECT_EQ(parse(std::string("GET /m\x01 HTTP/1.1\r\n\r\n")).status, 400);
  EXPECT_EQ(parse("GET /metrics HTTP/2.0\r\n\r\n").status, 505);
  std::string many = "GET /metrics HTTP/1.1\r\n";
  for (int i = 0; i < 101; ++i) many += "X: y\r\n";
  EXPECT_EQ(parse(many + "\r\n").status, 431);
}

TEST(HttpRequest, ConnectionFieldDecidesKeepAlive) {
  EXPECT_TRUE(parse("GET / HTTP/1.1\r\nConnection: close\r\n\r\n").close_after);
  EXPECT_FALSE(parse("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").close_after);
}

}  // namespace
}  // namespace rooftop::telemetry
