// MetricsServer: the two endpoints, keep-alive, and hostile clients.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "telemetry/server.h"

namespace rooftop::telemetry {
namespace {

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ServerOptions o;
    o.port = 0;
    o.header_timeout_s = 0.3;
    o.idle_timeout_s = 0.5;
    o.max_request_bytes = 1024;
    o.max_connections = 4;
    auto s = MetricsServer::listen(o);
    ASSERT_TRUE(s) << s.error().what();
    server_ = std::move(*s);
    server_->publish(std::make_shared<const std::string>("up 1\n"));
    thread_ = std::thread([this] { server_->run(); });
  }
  void TearDown() override {
    server_->stop();
    thread_.join();
  }

  int connect_fd() {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(server_->port()));
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    return fd;
  }

  // Reads until the peer closes or `timeout_s` passes (or `until` appears).
  static std::string read_all(int fd, double timeout_s = 2, const std::string& until = "") {
    std::string out;
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (std::chrono::steady_clock::now() < end) {
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      char buf[4096];
      const ssize_t n = recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      out.append(buf, static_cast<std::size_t>(n));
      if (!until.empty() && out.find(until) != std::string::npos) break;
    }
    return out;
  }

  std::string request(const std::string& raw) {
    const int fd = connect_fd();
    send(fd, raw.data(), raw.size(), MSG_NOSIGNAL);
    std::string r = read_all(fd);
    close(fd);
    return r;
  }

  bool still_serving() { return request("GET /metrics HTTP/1.0\r\n\r\n").find("200 OK") != std::string::npos; }

  std::unique_ptr<MetricsServer> server_;
  std::thread thread_;
};

TEST_F(ServerTest, ServesMetricsAndHealth) {
  const std::string r = request("GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(r.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << r;
  EXPECT_NE(r.find("Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"), std::string::npos);
  EXPECT_NE(r.find("Content-Length: 5\r\n"), std::string::npos);
  EXPECT_EQ(r.substr(r.size() - 5), "up 1\n");
  EXPECT_NE(request("GET /healthz HTTP/1.0\r\n\r\n").find("200 OK"), std::string::npos);
  const std::string head = request("HEAD /metrics HTTP/1.0\r\n\r\n");
  EXPECT_NE(head.find("200 OK"), std::string::npos);
  EXPECT_EQ(head.find("up 1"), std::string::npos);
}

TEST_F(ServerTest, KeepAliveAndPipelining) {
  const int fd = connect_fd();
  const std::string two = "GET /metrics HTTP/1.1\r\n\r\nGET /healthz HTTP/1.1\r\n\r\n";
  send(fd, two.data(), two.size(), MSG_NOSIGNAL);
  const std::string r = read_all(fd, 2, "ok\n");
  EXPECT_NE(r.find("up 1\n"), std::string::npos);
  EXPECT_NE(r.find("ok\n"), std::string::npos);
  close(fd);
}

TEST_F(ServerTest, HostileRequestsGet4xxAndServingContinues) {
  EXPECT_NE(request("POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n").find("405 Method Not Allowed"), std::string::npos);
  EXPECT_NE(request("DELETE /metrics HTTP/1.1\r\n\r\n").find("405"), std::string::npos);
  EXPECT_NE(request("GET /etc/passwd HTTP/1.1\r\n\r\n").find("404"), std::string::npos);
  EXPECT_NE(request("GET ../x HTTP/1.1\r\n\r\n").find("400"), std::string::npos);
  EXPECT_NE(request(std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 15)).find("400"), std::string::npos);
  EXPECT_NE(request("GET /metrics HTTP/1.1\r\nX: " + std::string(4000, 'a') + "\r\n\r\n").find("431"), std::string::npos);
  EXPECT_NE(request("GET /metrics HTTP/1.1\r\nno colon here\r\n\r\n").find("400"), std::string::npos);
  EXPECT_NE(request("GET /metrics HTTP/2.0\r\n\r\n").find("505"), std::string::npos);
  EXPECT_NE(request("GET /metrics HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n").find("400"), std::string::npos);
  EXPECT_TRUE(still_serving());
}

// RFC 9112 section 3.2.2: the absolute form is served by its path; a target
// that is neither form is 400 with the reason in the body.
TEST_F(ServerTest, AbsoluteFormTargetsAreServed) {
  const std::string r = request("GET http://127.0.0.1:9400/metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(r.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << r;
  EXPECT_EQ(r.substr(r.size() - 5), "up 1\n");
  const std::string bad = request("GET ftp://127.0.0.1/metrics HTTP/1.1\r\n\r\n");
  EXPECT_EQ(bad.rfind("HTTP/1.1 400 Bad Request\r\n", 0), 0u) << bad;
  EXPECT_NE(bad.find("must use http or https"), std::string::npos) << bad;
}

TEST_F(ServerTest, SlowlorisClientsTimeOutAndDoNotBlockOthers) {
  std::vector<int> slow;
  for (int i = 0; i < 3; ++i) {
    slow.push_back(connect_fd());
    send(slow.back(), "GET /met", 8, MSG_NOSIGNAL);
  }
  EXPECT_TRUE(still_serving());  // one slot left
  const auto t0 = std::chrono::steady_clock::now();
  for (int fd : slow) {
    // Trickle bytes: the deadline counts from the first byte, so this does not help.
    for (int i = 0; i < 4; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      send(fd, "r", 1, MSG_NOSIGNAL);
    }
  }
  for (int fd : slow) {
    const std::string r = read_all(fd, 3);
    EXPECT_TRUE(r.empty() || r.find("408") != std::string::npos) << r;
    close(fd);
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 3.0);
  EXPECT_TRUE(still_serving());
}

// At the cap (4 here) a new client gets a slot: the oldest connection that
// is not being answered (idle, or a head still incomplete) is closed for it.
TEST_F(ServerTest, AtTheCapTheOldestIdleConnectionMakesWay) {
  std::vector<int> held;
  for (int i = 0; i < 4; ++i) {
    held.push_back(connect_fd());
    send(held.back(), "GET /met", 8, MSG_NOSIGNAL);  // half a request head
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const std::string r = request("GET /metrics HTTP/1.0\r\n\r\n");
  EXPECT_NE(r.find("200 OK"), std::string::npos) << r;
  const std::string oldest = read_all(held[0], 2);  // closed: at once, or by its 0.3 s head timeout (408)
  EXPECT_TRUE(oldest.empty() || oldest.find("408") != std::string::npos) << oldest;
  char b;
  EXPECT_EQ(recv(held[0], &b, 1, MSG_DONTWAIT), 0) << "the oldest connection was not closed";
  for (int fd : held) close(fd);
}

TEST(ServerListen, ParsesAddressesAndRejectsBadOnes) {
  EXPECT_EQ(parse_listen("127.0.0.1:9400")->second, 9400);
  EXPECT_EQ(parse_listen("[::1]:80")->first, "::1");
  EXPECT_EQ(parse_listen(":9400")->first, "0.0.0.0");
  EXPECT_FALSE(parse_listen("9400"));
  EXPECT_FALSE(parse_listen("127.0.0.1:99999"));
  EXPECT_FALSE(parse_listen("example.com:80"));
}

TEST(ServerListen, AddressInUseIsAnIoError) {
  ServerOptions o;
  o.port = 0;
  auto a = MetricsServer::listen(o);
  ASSERT_TRUE(a);
  o.port = (*a)->port();
  auto b = MetricsServer::listen(o);
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().code, Errc::io);
}

}  // namespace
}  // namespace rooftop::telemetry
