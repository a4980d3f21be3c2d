// The Prometheus HTTP client against a scripted loopback server: framings,
// the request it sends, and each failure said in words.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "analyze/http.h"

namespace rooftop::analyze {
namespace {

// Accepts one connection, reads the request (headers + Content-Length body),
// then answers `reply` (or sleeps, or closes) and closes.
class OneShotServer {
 public:
  explicit OneShotServer(std::string reply, int delay_ms = 0) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    ::listen(fd_, 1);
    thread_ = std::thread([this, reply = std::move(reply), delay_ms] {
      int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      char buf[4096];
      std::size_t want = std::string::npos;
      while (request_.size() < want) {
        ssize_t n = ::recv(c, buf, sizeof buf, 0);
        if (n <= 0) break;
        request_.append(buf, static_cast<std::size_t>(n));
        std::size_t end = request_.find("\r\n\r\n");
        std::size_t cl = request_.find("Content-Length: ");
        if (end != std::string::npos && cl != std::string::npos)
          want = end + 4 + std::stoul(request_.substr(cl + 16));
      }
      if (delay_ms) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
      for (std::size_t off = 0; off < reply.size();) {  // in small pieces: the client must reassemble
        ssize_t n = ::send(c, reply.data() + off, std::min<std::size_t>(7, reply.size() - off), MSG_NOSIGNAL);
        if (n <= 0) break;
        off += static_cast<std::size_t>(n);
      }
      ::close(c);
    });
  }
  ~OneShotServer() {
    finish();
    ::close(fd_);
  }
  // Waits for the exchange to end; the request as received.
  const std::string& finish() {
    if (thread_.joinable()) {
      ::shutdown(fd_, SHUT_RDWR);  // unblocks accept() if the client never came
      thread_.join();
    }
    return request_;
  }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
  std::string request_;
};

TEST(Http, ContentLengthBodyAndTheRequestSent) {
  OneShotServer s("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\nhello");
  auto r = http_post_form("127.0.0.1", s.port(), "/api/v1/query_range", {{"query", "up{job=\"a b\"}"}, {"step", "1"}});
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "hello");
  const std::string req = s.finish();
  EXPECT_EQ(req.rfind("POST /api/v1/query_range HTTP/1.1\r\n", 0), 0u) << req;
  EXPECT_NE(req.find("\r\nHost: 127.0.0.1:" + std::to_string(s.port()) + "\r\n"), std::string::npos);
  EXPECT_NE(req.find("\r\nContent-Type: application/x-www-form-urlencoded\r\n"), std::string::npos);
  EXPECT_NE(req.find("\r\nConnection: close\r\n"), std::string::npos);
  EXPECT_EQ(req.substr(req.find("\r\n\r\n") + 4), "query=up%7Bjob%3D%22a%20b%22%7D&step=1");
}

TEST(Http, SendsAFormPost) {
  OneShotServer s("HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n");
  auto r = http_post_form("localhost", s.port(), "/api/v1/query_range", {{"query", "up{job=\"a b\"}"}, {"step", "1"}});
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ(r->status, 204);
  EXPECT_TRUE(r->body.empty());
}

TEST(Http, SendsTheExtraHeaders) {
  OneShotServer s("HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n");
  HttpOptions o;
  o.headers = {"Authorization: Bearer t0ken"};
  auto r = http_post_form("127.0.0.1", s.port(), "/api/v1/query", {{"query", "up"}}, o);
  ASSERT_TRUE(r) << r.error().what();
  const std::string req = s.finish();
  EXPECT_NE(req.find("\r\nAuthorization: Bearer t0ken\r\n"), std::string::npos) << req;
  EXPECT_LT(req.find("Authorization"), req.find("\r\n\r\n"));
}

TEST(Http, BasicAuthorizationIsBase64) {
  // RFC 7617's example, and every padding length.
  EXPECT_EQ(basic_authorization("Aladdin", "open sesame"), "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
  EXPECT_EQ(basic_authorization("a", "b"), "Basic YTpi");
  EXPECT_EQ(basic_authorization("ab", "c"), "Basic YWI6Yw==");
  EXPECT_EQ(basic_authorization("ab", "cd"), "Basic YWI6Y2Q=");
}

TEST(Http, FormEncoding) {
  EXPECT_EQ(form_encode({{"query", "up{job=\"a b\"}"}, {"step", "1.5"}}), "query=up%7Bjob%3D%22a%20b%22%7D&step=1.5");
  EXPECT_EQ(form_encode({}), "");
}

TEST(Http, ChunkedAndReadToCloseBodies) {
  {
    OneShotServer s("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"a\"\r\nA;ext=1\r\n:[1,2,3,4]\r\n1\r\n}\r\n0\r\n\r\n");
    auto r = http_post_form("127.0.0.1", s.port(), "/", {});
    ASSERT_TRUE(r) << r.error().what();
    EXPECT_EQ(r->body, "{\"a\":[1,2,3,4]}");
  }
  {
    OneShotServer s("HTTP/1.0 400 Bad Request\r\n\r\nno such thing");
    auto r = http_post_form("127.0.0.1", s.port(), "/", {});
    ASSERT_TRUE(r) << r.error().what();
    EXPECT_EQ(r->status, 400);
    EXPECT_EQ(r->body, "no such thing");
  }
}

TEST(Http, FailuresAreSaidInWords) {
  auto message = [](const Result<HttpResponse>& r) { return r ? std::string("no error") : r.error().message; };
  {
    OneShotServer s("SSH-2.0-OpenSSH_9.2\r\n");
    EXPECT_NE(message(http_post_form("127.0.0.1", s.port(), "/", {})).find("not an HTTP response"), std::string::npos);
  }
  {
    OneShotServer s("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort");
    EXPECT_NE(message(http_post_form("127.0.0.1", s.port(), "/", {})).find("truncated"), std::string::npos);
  }
  {
    OneShotServer s("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n");
    EXPECT_NE(message(http_post_form("127.0.0.1", s.port(), "/", {})).find("bad chunk size"), std::string::npos);
  }
  {
    OneShotServer s("");  // accepts, reads, closes without a word
    EXPECT_NE(message(http_post_form("127.0.0.1", s.port(), "/", {})).find("without a response"), std::string::npos);
  }
  {
    OneShotServer s("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx", 1500);
    HttpOptions o;
    o.read_timeout_s = 0.2;
    EXPECT_NE(message(http_post_form("127.0.0.1", s.port(), "/", {}, o)).find("timed out after 0.2 s"), std::string::npos);
  }
  {
    OneShotServer s("HTTP/1.1 200 OK\r\nContent-Length: 3000\r\n\r\n" + std::string(3000, 'x'));
    HttpOptions o;
    o.max_response_bytes = 1000;
    EXPECT_NE(message(http_post_form("127.0.0.1", s.port(), "/", {}, o)).find("larger than 1000 bytes"), std::string::npos);
  }
  // A port nobody listens on.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  EXPECT_NE(message(http_post_form("127.0.0.1", ntohs(a.sin_port), "/", {})).find("connection refused"), std::string::npos);
}

// A machine without the system CA bundle (Debian without ca-certificates):
// the message names the bundle and the two ways out, not an empty CA file.
TEST(Http, AMissingSystemCaBundleIsSaidInWords) {
  OneShotServer s("");
  const char* before = std::getenv("SSL_CERT_FILE");
  const std::string saved = before ? before : "";
  ::setenv("SSL_CERT_FILE", "/nonexistent/ca-certificates.crt", 1);
  auto r = https_post_form("https://127.0.0.1:" + std::to_string(s.port()), "/", {});
  if (before) ::setenv("SSL_CERT_FILE", saved.c_str(), 1);
  else ::unsetenv("SSL_CERT_FILE");
  ASSERT_FALSE(r);
  if (r.error().message.find("needs libcurl") != std::string::npos) GTEST_SKIP() << r.error().message;
  EXPECT_EQ(r.error().message,
            "the system CA bundle /nonexistent/ca-certificates.crt is missing (install ca-certificates) or give --ca-file");
}

}  // namespace
}  // namespace rooftop::analyze
