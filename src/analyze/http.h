// A small HTTP/1.1 client for one job: POST a form to a Prometheus server
// over plain http and read the whole answer. https goes through libcurl,
// dlopened on first use (https_post_form), so neither TLS nor libcurl is
// loaded by a process that never asks for https.
//
// Why not cpp-httplib (which Debian ships): its compiled library links
// OpenSSL, zlib and brotli, and a linked library is loaded by every rooftop
// process, including the `rooftop monitor` daemon on each GPU node, where it
// cost ~4 MB of resident memory for a client the daemon never uses. This
// needs neither TLS nor compression (Prometheus' API over http, like the
// rest of rooftop's servers on loopback or a cluster network), so it is a
// socket, a request and a response parser: Content-Length, chunked, or
// read-to-close bodies.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/result.h"

namespace rooftop::analyze {

struct HttpResponse {
  int status = 0;
  std::string body;
};

struct HttpOptions {
  double connect_timeout_s = 5;
  double read_timeout_s = 60;                 // longest silence while waiting for bytes
  std::size_t max_response_bytes = 1u << 30;  // a larger answer is an error, not an OOM
  std::vector<std::string> headers;           // extra request headers ("Authorization: Bearer ...")
  std::string ca_file;                        // https: verify the server against this CA ("" = the system's)
};

// application/x-www-form-urlencoded (RFC 3986 unreserved characters kept).
std::string form_encode(const std::vector<std::pair<std::string, std::string>>& fields);

// POSTs `fields` to http://host:port/path. Errors (Errc::io) say what
// failed in words: "cannot resolve host", "connection refused", "timed out
// after 5 s", "not an HTTP response", "response larger than 1 GiB".
Result<HttpResponse> http_post_form(const std::string& host, int port, const std::string& path,
                                    const std::vector<std::pair<std::string, std::string>>& fields,
                                    const HttpOptions& opts = {});

// The same over https, through libcurl loaded at run time (curl_http.cpp):
// `url` is https://host[:port] (no path). Errors (Errc::io) say what failed:
// "libcurl is not installed", "the server's certificate does not verify
// against CA_FILE", "timed out after 5 s waiting for the response".
Result<HttpResponse> https_post_form(const std::string& url, const std::string& path,
                                     const std::vector<std::pair<std::string, std::string>>& fields,
                                     const HttpOptions& opts = {});

// "Basic base64(user:password)", an Authorization header value.
std::string basic_authorization(const std::string& user, const std::string& password);

// Parses a complete HTTP/1.x response (status line, headers, body in any of
// the three framings). Exposed for tests.
Result<HttpResponse> parse_http_response(const std::string& raw);

}  // namespace rooftop::analyze
