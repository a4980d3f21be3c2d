// TlsContext / TlsConn over a dlopened libssl.so.3 (why: tls.h).
#include "telemetry/tls.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <fstream>

#include "core/dynlib.h"

namespace rooftop::telemetry {

// The OpenSSL 3 functions the server uses, bound from libssl.so.3 (the
// libcrypto ones resolve through libssl's own dependency on libcrypto.so.3).
// SSL_CTX_set_mode and SSL_CTX_set_min_proto_version are macros over
// SSL_CTX_ctrl.
struct TlsContext::Api {
  DynLib lib;
  decltype(&::TLS_server_method) server_method = nullptr;
  decltype(&::SSL_CTX_new) ctx_new = nullptr;
  decltype(&::SSL_CTX_free) ctx_free = nullptr;
  decltype(&::SSL_CTX_ctrl) ctx_ctrl = nullptr;
  decltype(&::SSL_CTX_use_certificate_chain_file) use_chain = nullptr;
  decltype(&::SSL_CTX_use_PrivateKey_file) use_key = nullptr;
  decltype(&::SSL_CTX_check_private_key) check_key = nullptr;
  decltype(&::SSL_new) ssl_new = nullptr;
  decltype(&::SSL_free) ssl_free = nullptr;
  decltype(&::SSL_set_fd) set_fd = nullptr;
  decltype(&::SSL_accept) ssl_accept = nullptr;
  decltype(&::SSL_read_ex) read_ex = nullptr;
  decltype(&::SSL_write_ex) write_ex = nullptr;
  decltype(&::SSL_get_error) get_error = nullptr;
  decltype(&::SSL_shutdown) ssl_shutdown = nullptr;
  decltype(&::ERR_get_error) err_get = nullptr;
  decltype(&::ERR_error_string_n) err_string = nullptr;
  decltype(&::ERR_clear_error) err_clear = nullptr;

  explicit Api(DynLib l) : lib(std::move(l)) {}

  // OpenSSL's queued errors as one line ("" when none), clearing the queue.
  std::string errors() const {
    std::string out;
    for (unsigned long e; (e = err_get()) != 0;) {
      char buf[256];
      err_string(e, buf, sizeof buf);
      out += (out.empty() ? "" : "; ") + std::string(buf);
    }
    return out;
  }
};

namespace {

Result<std::shared_ptr<const TlsContext::Api>> load_api() {
  auto lib = DynLib::open({"libssl.so.3"});
  if (!lib)
    return make_error(Errc::not_found, "TLS needs OpenSSL's libssl.so.3 (Debian package libssl3): " +
                                           lib.error().message);
  auto api = std::make_shared<TlsContext::Api>(std::move(*lib));
  const DynLib& l = api->lib;
  ROOFTOP_TRY(l.require(api->server_method, {"TLS_server_method"}));
  ROOFTOP_TRY(l.require(api->ctx_new, {"SSL_CTX_new"}));
  ROOFTOP_TRY(l.require(api->ctx_free, {"SSL_CTX_free"}));
  ROOFTOP_TRY(l.require(api->ctx_ctrl, {"SSL_CTX_ctrl"}));
  ROOFTOP_TRY(l.require(api->use_chain, {"SSL_CTX_use_certificate_chain_file"}));
  ROOFTOP_TRY(l.require(api->use_key, {"SSL_CTX_use_PrivateKey_file"}));
  ROOFTOP_TRY(l.require(api->check_key, {"SSL_CTX_check_private_key"}));
  ROOFTOP_TRY(l.require(api->ssl_new, {"SSL_new"}));
  ROOFTOP_TRY(l.require(api->ssl_free, {"SSL_free"}));
  ROOFTOP_TRY(l.require(api->set_fd, {"SSL_set_fd"}));
  ROOFTOP_TRY(l.require(api->ssl_accept, {"SSL_accept"}));
  ROOFTOP_TRY(l.require(api->read_ex, {"SSL_read_ex"}));
  ROOFTOP_TRY(l.require(api->write_ex, {"SSL_write_ex"}));
  ROOFTOP_TRY(l.require(api->get_error, {"SSL_get_error"}));
  ROOFTOP_TRY(l.require(api->ssl_shutdown, {"SSL_shutdown"}));
  ROOFTOP_TRY(l.require(api->err_get, {"ERR_get_error"}));
  ROOFTOP_TRY(l.require(api->err_string, {"ERR_error_string_n"}));
  ROOFTOP_TRY(l.require(api->err_clear, {"ERR_clear_error"}));
  return std::shared_ptr<const TlsContext::Api>(std::move(api));
}

bool readable(const std::string& path) { return std::ifstream(path, std::ios::binary).good(); }

}  // namespace

Result<std::unique_ptr<TlsContext>> TlsContext::load(const std::string& cert_file, const std::string& key_file) {
  if (!readable(cert_file)) return make_error(Errc::invalid_input, "cannot read the TLS certificate file", cert_file);
  if (!readable(key_file)) return make_error(Errc::invalid_input, "cannot read the TLS key file", key_file);
  auto api = load_api();
  if (!api) return make_error(api.error());
  const Api& a = **api;
  SSL_CTX* ctx = a.ctx_new(a.server_method());
  if (!ctx) return make_error(Errc::io, "OpenSSL cannot create a TLS context: " + a.errors());
  std::unique_ptr<TlsContext> out(new TlsContext(*api, ctx));
  a.ctx_ctrl(ctx, SSL_CTRL_SET_MIN_PROTO_VERSION, TLS1_2_VERSION, nullptr);  // exporter-toolkit's default minimum
  a.ctx_ctrl(ctx, SSL_CTRL_MODE, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER, nullptr);
  a.err_clear();
  if (a.use_chain(ctx, cert_file.c_str()) != 1)
    return make_error(Errc::invalid_input, "not a PEM certificate (chain): " + a.errors(), cert_file);
  if (a.use_key(ctx, key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    const std::string why = a.errors();
    // OpenSSL checks the pair already while loading the key.
    if (why.find("values mismatch") != std::string::npos || why.find("key mismatch") != std::string::npos)
      return make_error(Errc::invalid_input, "the certificate " + cert_file + " does not match the key " + key_file,
                        cert_file);
    return make_error(Errc::invalid_input, "not a PEM private key (or it is encrypted): " + why, key_file);
  }
  if (a.check_key(ctx) != 1) {
    a.errors();
    return make_error(Errc::invalid_input, "the certificate " + cert_file + " does not match the key " + key_file,
                      cert_file);
  }
  return out;
}

TlsContext::~TlsContext() {
  if (ctx_) api_->ctx_free(static_cast<SSL_CTX*>(ctx_));
}

std::unique_ptr<TlsConn> TlsContext::accept(int fd) {
  SSL* ssl = api_->ssl_new(static_cast<SSL_CTX*>(ctx_));
  if (!ssl) return nullptr;
  if (api_->set_fd(ssl, fd) != 1) {
    api_->ssl_free(ssl);
    return nullptr;
  }
  return std::make_unique<TlsConn>(api_, ssl);
}

TlsConn::~TlsConn() {
  if (ssl_) api_->ssl_free(static_cast<SSL*>(ssl_));
}

TlsIo TlsConn::status(int rc) {
  const int e = api_->get_error(static_cast<SSL*>(ssl_), rc);
  if (e == SSL_ERROR_WANT_READ) return TlsIo::want_read;
  if (e == SSL_ERROR_WANT_WRITE) return TlsIo::want_write;
  api_->err_clear();  // a failed session must not leave errors for the next one
  return TlsIo::closed;
}

TlsIo TlsConn::handshake() {
  const int rc = api_->ssl_accept(static_cast<SSL*>(ssl_));
  if (rc == 1) {
    established_ = true;
    return TlsIo::ok;
  }
  return status(rc);
}

TlsIo TlsConn::read(char* buf, std::size_t n, std::size_t* got) {
  *got = 0;
  const int rc = api_->read_ex(static_cast<SSL*>(ssl_), buf, n, got);
  return rc == 1 ? TlsIo::ok : status(rc);
}

TlsIo TlsConn::write(const char* buf, std::size_t n, std::size_t* put) {
  *put = 0;
  const int rc = api_->write_ex(static_cast<SSL*>(ssl_), buf, n, put);
  return rc == 1 ? TlsIo::ok : status(rc);
}

void TlsConn::shutdown() {
  if (established_) api_->ssl_shutdown(static_cast<SSL*>(ssl_));
  api_->err_clear();
}

}  // namespace rooftop::telemetry
