// TLS for the /metrics server (`tls_server_config` of the web config file).
//
// Debian's OpenSSL (libssl.so.3), loaded with dlopen only when the web
// config asks for TLS, like the vendor libraries (core/dynlib.h): a monitor
// serving plain HTTP never maps libssl/libcrypto (about 5 MiB of code and
// their start-up allocations), so the start-up footprint measured against
// node_exporter stays where it was, and the binary has no link-time
// dependency on a library most nodes use only through a sidecar. OpenSSL
// rather than GnuTLS: it reads the PEM certificate chains and PKCS#8/
// traditional keys that exporter-toolkit users already have, it is on every
// Debian system (libssl3 is priority important), and its nonblocking
// SSL_accept/SSL_read/SSL_write map onto the server's poll() loop as they are.
// Types come from the libssl-dev headers; no symbol is linked.
//
// Thread-safety: a TlsContext and its connections are used by the server
// thread only.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "core/result.h"

namespace rooftop::telemetry {

enum class TlsIo {
  ok,          // progress made (bytes moved, or the handshake finished)
  want_read,   // wait until the socket is readable
  want_write,  // wait until the socket is writable
  closed,      // the peer closed or the session failed: close the socket
};

class TlsConn;

class TlsContext {
 public:
  // Loads libssl, the certificate chain and the private key (PEM files), and
  // checks that they belong together. Errc::invalid_input naming the file
  // that is unreadable, not PEM, or a certificate that does not match its
  // key; Errc::not_found when libssl.so.3 cannot be loaded.
  static Result<std::unique_ptr<TlsContext>> load(const std::string& cert_file, const std::string& key_file);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;
  // A server-side session on a connected nonblocking socket (not owned);
  // nullptr when OpenSSL cannot allocate one.
  std::unique_ptr<TlsConn> accept(int fd);

  struct Api;

 private:
  TlsContext(std::shared_ptr<const Api> api, void* ctx) : api_(std::move(api)), ctx_(ctx) {}
  std::shared_ptr<const Api> api_;
  void* ctx_ = nullptr;  // SSL_CTX*
};

class TlsConn {
 public:
  TlsConn(std::shared_ptr<const TlsContext::Api> api, void* ssl) : api_(std::move(api)), ssl_(ssl) {}
  ~TlsConn();
  TlsConn(const TlsConn&) = delete;
  TlsConn& operator=(const TlsConn&) = delete;
  bool established() const { return established_; }
  // Continues the handshake.
  TlsIo handshake();
  // Reads up to n bytes into buf; *got = bytes read (ok only when > 0).
  TlsIo read(char* buf, std::size_t n, std::size_t* got);
  // Writes up to n bytes; *put = bytes taken (ok only when > 0).
  TlsIo write(const char* buf, std::size_t n, std::size_t* put);
  // Sends close_notify, best effort (the socket is closed right after).
  void shutdown();

 private:
  TlsIo status(int rc);
  std::shared_ptr<const TlsContext::Api> api_;
  void* ssl_ = nullptr;  // SSL*
  bool established_ = false;
};

}  // namespace rooftop::telemetry
