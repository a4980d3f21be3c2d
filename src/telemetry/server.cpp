// MetricsServer implementation: one poll() loop, non-blocking sockets,
// per-connection deadlines (see server.h for why not cpp-httplib).
#include "telemetry/server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>

#include <fmt/format.h>

#include "core/text.h"
#include "telemetry/http_request.h"
#include "telemetry/tls.h"
#include "telemetry/webconfig.h"

namespace rooftop::telemetry {
namespace {

using Clock = std::chrono::steady_clock;

double now_s() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

const char* reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 431: return "Request Header Fields Too Large";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Error";
  }
}

// Best effort, for connections we are about to close anyway.
void send_and_close(int fd, int status) {
  const std::string msg = fmt::format("HTTP/1.1 {} {}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", status,
                                      reason(status));
  [[maybe_unused]] ssize_t n = send(fd, msg.data(), msg.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  close(fd);
}

}  // namespace

struct MetricsServer::Conn {
  int fd = -1;
  std::unique_ptr<TlsConn> tls;  // set on a TLS server
  short tls_wait = 0;            // POLLIN/POLLOUT the TLS session waits for; 0 = as `writing` says
  std::string in;
  std::string head;
  std::shared_ptr<const std::string> body;
  std::size_t sent = 0;
  bool writing = false;
  bool close_after = false;
  double deadline_s = 0;
  double idle_since_s = 0;  // accepted, or last answer sent: what "oldest" means at the cap
};

Result<std::pair<std::string, int>> parse_listen(const std::string& text) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos)
    return make_error(Errc::invalid_input, "expected HOST:PORT such as 127.0.0.1:9400, got '" + text + "'", "--listen");
  std::string host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty()) host = "0.0.0.0";
  if (host == "localhost") host = "127.0.0.1";
  const auto port = parse_int(text.substr(colon + 1));
  if (!port || *port < 0 || *port > 65535)
    return make_error(Errc::invalid_input, "port must be 0..65535 in '" + text + "'", "--listen");
  in6_addr a6{};
  in_addr a4{};
  if (inet_pton(AF_INET, host.c_str(), &a4) != 1 && inet_pton(AF_INET6, host.c_str(), &a6) != 1)
    return make_error(Errc::invalid_input, "'" + host + "' is not a numeric IP address", "--listen");
  return std::make_pair(host, static_cast<int>(*port));
}

Result<std::unique_ptr<MetricsServer>> MetricsServer::listen(const ServerOptions& opts) {
  sockaddr_storage ss{};
  socklen_t len = 0;
  auto* s4 = reinterpret_cast<sockaddr_in*>(&ss);
  auto* s6 = reinterpret_cast<sockaddr_in6*>(&ss);
  if (inet_pton(AF_INET, opts.host.c_str(), &s4->sin_addr) == 1) {
    s4->sin_family = AF_INET;
    s4->sin_port = htons(static_cast<std::uint16_t>(opts.port));
    len = sizeof(sockaddr_in);
  } else if (inet_pton(AF_INET6, opts.host.c_str(), &s6->sin6_addr) == 1) {
    s6->sin6_family = AF_INET6;
    s6->sin6_port = htons(static_cast<std::uint16_t>(opts.port));
    len = sizeof(sockaddr_in6);
  } else {
    return make_error(Errc::invalid_input, "'" + opts.host + "' is not a numeric IP address", "--listen");
  }
  const std::string where = fmt::format("{}:{}", opts.host, opts.port);
  const int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return make_error(Errc::io, std::string("socket: ") + std::strerror(errno), where);
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(fd, reinterpret_cast<sockaddr*>(&ss), len) != 0 || ::listen(fd, 128) != 0) {
    const int e = errno;
    close(fd);
    return make_error(Errc::io, std::string("cannot listen: ") + std::strerror(e), where);
  }
  getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
  const int port = ntohs(ss.ss_family == AF_INET ? s4->sin_port : s6->sin6_port);
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_NONBLOCK | O_CLOEXEC) != 0) {
    close(fd);
    return make_error(Errc::io, std::string("pipe: ") + std::strerror(errno), where);
  }
  std::signal(SIGPIPE, SIG_IGN);
  return std::unique_ptr<MetricsServer>(new MetricsServer(opts, fd, port, pipe_fds[0], pipe_fds[1]));
}

MetricsServer::MetricsServer(const ServerOptions& opts, int listen_fd, int port, int wake_r, int wake_w)
    : opts_(opts), listen_fd_(listen_fd), port_(port), wake_r_(wake_r), wake_w_(wake_w) {}

MetricsServer::~MetricsServer() {
  for (auto& c : conns_) {
    if (c->fd >= 0) close(c->fd);
  }
  close(listen_fd_);
  close(wake_r_);
  close(wake_w_);
}

void MetricsServer::publish(std::shared_ptr<const std::string> metrics) {
  {
    std::lock_guard lock(mu_);
    metrics_ = std::move(metrics);
  }
  published_s_ = now_s();
}

void MetricsServer::stop() {
  stop_ = true;
  const char b = 1;
  [[maybe_unused]] ssize_t n = write(wake_w_, &b, 1);
}

void MetricsServer::run() {
  std::vector<pollfd> fds;
  while (!stop_) {
    fds.clear();
    fds.push_back({wake_r_, POLLIN, 0});
    fds.push_back({listen_fd_, POLLIN, 0});
    double next_deadline = now_s() + 1;
    for (auto& c : conns_) {
      const short events = c->tls_wait ? c->tls_wait : static_cast<short>(c->writing ? POLLOUT : POLLIN);
      fds.push_back({c->fd, events, 0});
      next_deadline = std::min(next_deadline, c->deadline_s);
    }
    const int timeout_ms = std::clamp(static_cast<int>((next_deadline - now_s()) * 1000) + 1, 0, 1000);
    if (poll(fds.data(), fds.size(), timeout_ms) < 0 && errno != EINTR) break;
    if (fds[0].revents) {
      char buf[64];
      while (read(wake_r_, buf, sizeof buf) > 0) {
      }
    }
    if (stop_) break;
    for (std::size_t i = 2; i < fds.size(); ++i) {
      Conn& c = *conns_[i - 2];
      if (!fds[i].revents) continue;
      if (c.writing) flush(c);  // writable, or a TLS session that needed to read first
      else on_readable(c);
    }
    if (fds[1].revents & POLLIN) accept_all();
    const double now = now_s();
    for (auto& c : conns_) {
      if (c->fd >= 0 && now >= c->deadline_s) {
        // A stalled reader or an idle keep-alive is closed; a request head that
        // never completed gets 408 first.
        drop(*c, c->writing || c->in.empty() ? 0 : 408);
      }
    }
    conns_.erase(std::remove_if(conns_.begin(), conns_.end(), [](const auto& c) { return c->fd < 0; }),
                 conns_.end());
  }
}

void MetricsServer::accept_all() {
  for (;;) {
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    if (!make_room()) {
      if (opts_.tls) close(fd);  // no plain-text answer on a TLS port
      else send_and_close(fd, 503);  // every slot is busy sending an answer
      continue;
    }
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    auto c = std::make_unique<Conn>();
    c->fd = fd;
    if (opts_.tls) {
      c->tls = opts_.tls->accept(fd);
      if (!c->tls) {
        close(fd);
        continue;
      }
    }
    c->idle_since_s = now_s();
    c->deadline_s = c->idle_since_s + opts_.header_timeout_s;  // a fresh connection must send a request soon
    conns_.push_back(std::move(c));
  }
}

// At the cap, closes the connection that has waited longest without being
// answered (idle keep-alive, or a request head still incomplete) so that a
// new client, such as a scrape arriving while hundreds of half-open
// connections are held, gets a slot at once rather than a 503. Connections
// busy sending an answer are kept; false when every slot is one of those.
bool MetricsServer::make_room() {
  Conn* oldest = nullptr;
  int open = 0;
  for (auto& c : conns_) {
    if (c->fd < 0) continue;
    ++open;
    if (!c->writing && (!oldest || c->idle_since_s < oldest->idle_since_s)) oldest = c.get();
  }
  if (open < opts_.max_connections) return true;
  if (!oldest) return false;
  close(oldest->fd);  // removed from conns_ at the end of this round of run()
  oldest->fd = -1;
  return true;
}

void MetricsServer::on_readable(Conn& c) {
  char buf[4096];
  if (c.tls) {
    c.tls_wait = 0;
    TlsIo io = c.tls->established() ? TlsIo::ok : c.tls->handshake();
    while (io == TlsIo::ok) {
      std::size_t got = 0;
      io = c.tls->read(buf, sizeof buf, &got);
      if (io != TlsIo::ok) break;
      if (c.in.empty()) c.deadline_s = now_s() + opts_.header_timeout_s;
      c.in.append(buf, got);
      if (c.in.size() > opts_.max_request_bytes + sizeof buf) break;
    }
    if (io == TlsIo::closed) return drop(c, 0);
    if (io == TlsIo::want_write) c.tls_wait = POLLOUT;
    return process(c);
  }
  for (;;) {
    const ssize_t n = recv(c.fd, buf, sizeof buf, 0);
    if (n > 0) {
      if (c.in.empty()) c.deadline_s = now_s() + opts_.header_timeout_s;  // the clock starts at the first byte
      c.in.append(buf, static_cast<std::size_t>(n));
      if (c.in.size() > opts_.max_request_bytes + sizeof buf) break;  // process() answers 431
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n < 0 && errno == EINTR) continue;
    close(c.fd);  // peer closed or failed
    c.fd = -1;
    return;
  }
  process(c);
}

// Parses one request head from c.in (telemetry/http_request.h) and queues
// the answer. Hostile or malformed input gets a 4xx that says why, and the
// connection closes after it.
void MetricsServer::process(Conn& c) {
  if (c.fd < 0 || c.writing) return;
  std::optional<RequestHead> req = parse_request_head(c.in, opts_.max_request_bytes);
  if (!req) return;  // wait for the rest of the head
  c.in.erase(0, std::min(req->consumed, c.in.size()));
  if (req->status) {
    return respond(c, req->status, "Content-Type: text/plain; charset=utf-8\r\n",
                   std::make_shared<const std::string>(req->reason + "\n"), false, true);
  }
  const bool close_after = req->close_after;
  const std::string& authorization = req->authorization;
  const bool head_only = req->method == "HEAD";
  if (req->method != "GET" && !head_only) return respond(c, 405, "Allow: GET, HEAD\r\n", nullptr, false, true);
  const std::string& path = req->path;
  if (path == "/metrics") {
    if (!authorized(authorization))
      return respond(c, 401, "WWW-Authenticate: Basic realm=\"rooftop monitor\", charset=\"UTF-8\"\r\n", nullptr,
                     head_only, close_after);
    std::shared_ptr<const std::string> body;
    {
      std::lock_guard lock(mu_);
      body = metrics_;
    }
    if (!body) return respond(c, 503, "Retry-After: 1\r\n", nullptr, head_only, close_after);
    return respond(c, 200, "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n", body, head_only,
                   close_after);
  }
  if (path == "/healthz") {
    const double age = now_s() - published_s_.load();
    const bool fresh = published_s_.load() >= 0 && age <= opts_.stale_after_s;
    static const auto ok = std::make_shared<const std::string>("ok\n");
    static const auto stale = std::make_shared<const std::string>("stale: no sampling round finished recently\n");
    return respond(c, fresh ? 200 : 503, "Content-Type: text/plain; charset=utf-8\r\n", fresh ? ok : stale,
                   head_only, close_after);
  }
  respond(c, 404, "", nullptr, head_only, close_after);
}

// Closes a connection; `status` (when not 0) is answered first on plain
// HTTP (a TLS connection is just closed: no answer outside the session).
void MetricsServer::drop(Conn& c, int status) {
  if (c.fd < 0) return;
  if (status && !c.tls) {
    send_and_close(c.fd, status);
  } else {
    close(c.fd);
  }
  c.fd = -1;
}

bool MetricsServer::authorized(const std::string& authorization) {
  if (opts_.basic_auth_users.empty()) return true;
  if (authorization.empty()) return false;
  if (std::find(authorized_.begin(), authorized_.end(), authorization) != authorized_.end()) return true;
  if (!check_basic_auth(opts_.basic_auth_users, authorization)) return false;
  if (authorized_.size() >= 16) authorized_.erase(authorized_.begin());
  authorized_.push_back(authorization);
  return true;
}

void MetricsServer::respond(Conn& c, int status, std::string_view extra_headers,
                            std::shared_ptr<const std::string> body, bool head_only, bool close_after) {
  const std::size_t size = body ? body->size() : 0;
  c.head = fmt::format("HTTP/1.1 {} {}\r\n{}Content-Length: {}\r\n{}\r\n", status, reason(status), extra_headers,
                       size, close_after ? "Connection: close\r\n" : "");
  c.body = head_only ? nullptr : std::move(body);
  c.sent = 0;
  c.writing = true;
  c.close_after = close_after;
  c.deadline_s = now_s() + opts_.write_timeout_s;
  flush(c);
}

void MetricsServer::flush(Conn& c) {
  const std::size_t body_size = c.body ? c.body->size() : 0;
  c.tls_wait = 0;
  while (c.tls && c.fd >= 0 && c.sent < c.head.size() + body_size) {
    const bool in_head = c.sent < c.head.size();
    const char* p = in_head ? c.head.data() + c.sent : c.body->data() + (c.sent - c.head.size());
    const std::size_t left = in_head ? c.head.size() - c.sent : body_size - (c.sent - c.head.size());
    std::size_t put = 0;
    const TlsIo io = c.tls->write(p, left, &put);
    if (io == TlsIo::closed) return drop(c, 0);
    if (io != TlsIo::ok) {
      c.tls_wait = io == TlsIo::want_read ? POLLIN : POLLOUT;
      return;
    }
    c.sent += put;
  }
  while (!c.tls && c.fd >= 0 && c.sent < c.head.size() + body_size) {
    iovec iov[2];
    int n_iov = 0;
    if (c.sent < c.head.size()) iov[n_iov++] = {c.head.data() + c.sent, c.head.size() - c.sent};
    const std::size_t body_off = c.sent > c.head.size() ? c.sent - c.head.size() : 0;
    if (body_size > body_off) iov[n_iov++] = {const_cast<char*>(c.body->data()) + body_off, body_size - body_off};
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = static_cast<std::size_t>(n_iov);
    const ssize_t n = sendmsg(c.fd, &msg, MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;  // poll for POLLOUT
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      close(c.fd);
      c.fd = -1;
      return;
    }
    c.sent += static_cast<std::size_t>(n);
  }
  if (c.fd < 0) return;
  if (c.close_after) {
    // Read what the client still sends (bounded) so close() does not turn into
    // a reset that destroys the answer before the client reads it.
    if (c.tls) c.tls->shutdown();
    shutdown(c.fd, SHUT_WR);
    char sink[4096];
    for (int i = 0; i < 16 && recv(c.fd, sink, sizeof sink, MSG_DONTWAIT) > 0; ++i) {
    }
    close(c.fd);
    c.fd = -1;
    return;
  }
  c.writing = false;
  c.body.reset();
  c.head.clear();
  c.idle_since_s = now_s();
  c.deadline_s = c.idle_since_s + (c.in.empty() ? opts_.idle_timeout_s : opts_.header_timeout_s);
  if (!c.in.empty()) process(c);  // a pipelined request already arrived
}

}  // namespace rooftop::telemetry
