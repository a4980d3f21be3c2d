// MetricsServer: the /metrics and /healthz HTTP endpoint of `rooftop monitor`.
//
// A small hand-written HTTP/1.1 server, single-threaded around poll(),
// rather than cpp-httplib 0.11: httplib's read timeout restarts on every
// byte (a slowloris client that trickles one byte every few seconds holds a
// worker forever) and its fixed thread pool is exhausted by a handful of
// such clients; it also spends a thread per connection. Here every request
// head must arrive whole within header_timeout_s of its first byte, the head
// is capped at max_request_bytes, connections are capped (at the cap the
// oldest connection not sending an answer makes way), and a scrape only
// copies a pointer to the text the sampler pre-rendered: it never touches a
// device. Only GET/HEAD of /metrics and /healthz are served; anything else
// gets a 4xx and the connection is closed (docs/monitor.md). With
// ServerOptions::tls every connection speaks TLS (the handshake must also
// finish within header_timeout_s).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace rooftop::telemetry {

class TlsContext;

struct ServerOptions {
  std::string host = "127.0.0.1";         // numeric IPv4/IPv6 address; loopback unless told otherwise
  int port = 9400;                         // 0 = any free port (see port())
  double header_timeout_s = 5;             // a request head must arrive whole in this time
  double idle_timeout_s = 60;              // keep-alive connection without a request
  double write_timeout_s = 10;             // a response must be taken in this time
  std::size_t max_request_bytes = 8192;    // request line + headers
  int max_connections = 64;                // at the cap the oldest idle/incomplete one is closed for a new one
  double stale_after_s = 10;               // /healthz says 503 when the last publish is older
  // HTTP basic auth for /metrics (telemetry/webconfig.h): user -> bcrypt
  // hash; empty = none. /healthz stays open for liveness probes.
  std::map<std::string, std::string> basic_auth_users;
  // TLS (telemetry/tls.h): every connection is TLS when set; plain HTTP when null.
  std::shared_ptr<TlsContext> tls;
};

// "127.0.0.1:9400", "[::1]:9400", ":9400" (all interfaces) -> host, port.
Result<std::pair<std::string, int>> parse_listen(const std::string& text);

class MetricsServer {
 public:
  // Binds and listens; Errc::io with the reason when the address is taken.
  static Result<std::unique_ptr<MetricsServer>> listen(const ServerOptions& opts);
  ~MetricsServer();
  int port() const { return port_; }
  // Replaces the text served at /metrics. Thread-safe.
  void publish(std::shared_ptr<const std::string> metrics);
  // Serves on the calling thread until stop().
  void run();
  // Makes run() return soon. Async-signal-safe (a write to a pipe).
  void stop();

 private:
  struct Conn;
  MetricsServer(const ServerOptions& opts, int listen_fd, int port, int wake_r, int wake_w);
  void accept_all();
  bool make_room();
  void on_readable(Conn& c);
  void process(Conn& c);
  bool authorized(const std::string& authorization);
  void respond(Conn& c, int status, std::string_view extra_headers, std::shared_ptr<const std::string> body,
               bool head_only, bool close_after);
  void flush(Conn& c);
  void drop(Conn& c, int status);

  ServerOptions opts_;
  int listen_fd_ = -1;
  int port_ = 0;
  int wake_r_ = -1, wake_w_ = -1;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::shared_ptr<const std::string> metrics_;
  std::atomic<double> published_s_{-1};
  std::vector<std::unique_ptr<Conn>> conns_;
  std::vector<std::string> authorized_;  // Authorization values that passed bcrypt (bounded; saves a bcrypt per scrape)
};

}  // namespace rooftop::telemetry
