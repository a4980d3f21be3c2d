// HTTP client (contract and rationale in http.h).
#include "analyze/http.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "core/text.h"

namespace rooftop::analyze {
namespace {

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

Error io(const std::string& what) { return Error{Errc::io, what, ""}; }

int ms(double s) { return static_cast<int>(s * 1000); }

// Waits for `events` on fd; false on timeout.
bool wait_for(int fd, short events, double timeout_s) {
  pollfd p{fd, events, 0};
  int r;
  do {
    r = ::poll(&p, 1, ms(timeout_s));
  } while (r < 0 && errno == EINTR);
  return r > 0;
}

Result<int> connect_to(const std::string& host, int port, double timeout_s) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  const std::string service = std::to_string(port);
  if (int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &res); rc != 0)
    return make_error(io("cannot resolve host '" + host + "' (" + gai_strerror(rc) + ")"));
  std::string last = "no address";
  int out = -1;
  for (addrinfo* a = res; a && out < 0; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      last = std::strerror(errno);
      continue;
    }
    if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
      out = fd;
      break;
    }
    if (errno != EINPROGRESS) {
      last = errno == ECONNREFUSED ? "connection refused" : std::strerror(errno);
      ::close(fd);
      continue;
    }
    if (!wait_for(fd, POLLOUT, timeout_s)) {
      last = fmt::format("connection timed out after {:g} s", timeout_s);
      ::close(fd);
      continue;
    }
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      last = err == ECONNREFUSED ? "connection refused" : std::strerror(err);
      ::close(fd);
      continue;
    }
    out = fd;
  }
  ::freeaddrinfo(res);
  if (out < 0) return make_error(io(last));
  return out;
}

bool iequals(const std::string& a, const std::string& b) { return to_lower(a) == to_lower(b); }

}  // namespace

std::string form_encode(const std::vector<std::pair<std::string, std::string>>& fields) {
  auto enc = [](const std::string& s) {
    std::string out;
    for (unsigned char c : s) {
      if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') out += static_cast<char>(c);
      else out += fmt::format("%{:02X}", c);
    }
    return out;
  };
  std::string out;
  for (const auto& [k, v] : fields) out += (out.empty() ? "" : "&") + enc(k) + "=" + enc(v);
  return out;
}

std::string basic_authorization(const std::string& user, const std::string& password) {
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const std::string in = user + ":" + password;
  std::string out = "Basic ";
  for (std::size_t i = 0; i < in.size(); i += 3) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) v |= static_cast<unsigned char>(in[i + 1]) << 8;
    if (i + 2 < in.size()) v |= static_cast<unsigned char>(in[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < in.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += i + 2 < in.size() ? kAlphabet[v & 63] : '=';
  }
  return out;
}

Result<HttpResponse> parse_http_response(const std::string& raw) {
  const std::size_t head_end = raw.find("\r\n\r\n");
  if (raw.compare(0, 7, "HTTP/1.") != 0 || raw.size() < 12 || head_end == std::string::npos)
    return make_error(io("not an HTTP response"));
  HttpResponse r;
  const auto status = parse_int(raw.substr(9, 3));
  if (!status || *status < 100 || *status > 599) return make_error(io("not an HTTP response (bad status line)"));
  r.status = static_cast<int>(*status);
  bool chunked = false;
  std::optional<std::size_t> length;
  std::size_t pos = raw.find("\r\n") + 2;
  while (pos < head_end) {
    std::size_t eol = raw.find("\r\n", pos);
    const std::string line = raw.substr(pos, eol - pos);
    pos = eol + 2;
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string name = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
    if (iequals(name, "transfer-encoding") && to_lower(value).find("chunked") != std::string::npos) chunked = true;
    if (iequals(name, "content-length")) {
      auto n = parse_int(value);
      if (!n || *n < 0) return make_error(io("bad Content-Length '" + value + "'"));
      length = static_cast<std::size_t>(*n);
    }
  }
  std::size_t body = head_end + 4;
  if (chunked) {
    for (;;) {
      std::size_t eol = raw.find("\r\n", body);
      if (eol == std::string::npos) return make_error(io("truncated chunked response"));
      std::string size_text = raw.substr(body, eol - body);
      size_text = trim(size_text.substr(0, size_text.find(';')));
      char* end = nullptr;
      errno = 0;
      const unsigned long long n = std::strtoull(size_text.c_str(), &end, 16);
      if (size_text.empty() || *end != '\0' || errno == ERANGE) return make_error(io("bad chunk size '" + size_text + "'"));
      body = eol + 2;
      if (n == 0) break;
      if (n > raw.size() - body) return make_error(io("truncated chunked response"));
      r.body.append(raw, body, static_cast<std::size_t>(n));
      body += static_cast<std::size_t>(n) + 2;  // data CRLF
    }
  } else if (length) {
    if (raw.size() - body < *length) return make_error(io("truncated response (Content-Length larger than the body)"));
    r.body = raw.substr(body, *length);
  } else {
    r.body = raw.substr(body);
  }
  return r;
}

Result<HttpResponse> http_post_form(const std::string& host, int port, const std::string& path,
                                    const std::vector<std::pair<std::string, std::string>>& fields,
                                    const HttpOptions& opts) {
  Result<int> fd_or = connect_to(host, port, opts.connect_timeout_s);
  if (!fd_or) return make_error(fd_or.error());
  Fd fd(*fd_or);
  const std::string body = form_encode(fields);
  const std::string host_header = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  std::string extra;
  for (const std::string& h : opts.headers) extra += h + "\r\n";
  const std::string req = fmt::format(
      "POST {} HTTP/1.1\r\nHost: {}:{}\r\nUser-Agent: rooftop\r\nAccept: application/json\r\n{}"
      "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
      path, host_header, port, extra, body.size(), body);
  std::size_t sent = 0;
  while (sent < req.size()) {
    ssize_t n = ::send(fd.get(), req.data() + sent, req.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      if (!wait_for(fd.get(), POLLOUT, opts.read_timeout_s))
        return make_error(io(fmt::format("timed out after {:g} s sending the request", opts.read_timeout_s)));
    } else {
      return make_error(io(std::string("connection lost while sending (") + std::strerror(errno) + ")"));
    }
  }
  std::string raw;
  char buf[65536];
  for (;;) {
    ssize_t n = ::recv(fd.get(), buf, sizeof buf, 0);
    if (n > 0) {
      raw.append(buf, static_cast<std::size_t>(n));
      if (raw.size() > opts.max_response_bytes)
        return make_error(io(fmt::format("response larger than {} bytes", opts.max_response_bytes)));
      continue;
    }
    if (n == 0) break;  // the server closed: the response is complete (Connection: close)
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      if (!wait_for(fd.get(), POLLIN, opts.read_timeout_s))
        return make_error(io(fmt::format("timed out after {:g} s waiting for the response", opts.read_timeout_s)));
      continue;
    }
    if (errno == ECONNRESET && !raw.empty()) break;
    return make_error(io(std::string("connection lost while reading (") + std::strerror(errno) + ")"));
  }
  if (raw.empty()) return make_error(io("the server closed the connection without a response"));
  return parse_http_response(raw);
}

}  // namespace rooftop::analyze
