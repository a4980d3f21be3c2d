// https through libcurl, loaded with dlopen on first use (core/dynlib.h), the
// way the BLAS kernels load OpenBLAS: rooftop never links libcurl (or a TLS
// library), so no process that stays on http, such as `rooftop monitor` on
// every node, pays for them. Contract in http.h.
#include <curl/curl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "analyze/http.h"
#include "core/dynlib.h"

namespace rooftop::analyze {

namespace {

// The libcurl entry points used, with curl.h's own signatures.
struct Curl {
  explicit Curl(DynLib l) : lib(std::move(l)) {}
  DynLib lib;
  decltype(&::curl_global_init) global_init = nullptr;
  decltype(&::curl_easy_init) easy_init = nullptr;
  decltype(&::curl_easy_setopt) setopt = nullptr;
  decltype(&::curl_easy_perform) perform = nullptr;
  decltype(&::curl_easy_getinfo) getinfo = nullptr;
  decltype(&::curl_easy_cleanup) cleanup = nullptr;
  decltype(&::curl_easy_strerror) strerror = nullptr;
  decltype(&::curl_slist_append) slist_append = nullptr;
  decltype(&::curl_slist_free_all) slist_free_all = nullptr;
};

// Loaded once; the error says why not.
Result<const Curl*> curl() {
  static const Result<std::unique_ptr<Curl>> loaded = []() -> Result<std::unique_ptr<Curl>> {
    Result<DynLib> lib = DynLib::open({"libcurl.so.4", "libcurl-gnutls.so.4", "libcurl-nss.so.4", "libcurl.so"});
    if (!lib) return make_error(Errc::io, "https needs libcurl, which is not installed (Debian: apt-get install libcurl4)");
    auto c = std::make_unique<Curl>(std::move(*lib));
    for (Result<void> r : {c->lib.require(c->global_init, {"curl_global_init"}), c->lib.require(c->easy_init, {"curl_easy_init"}),
                           c->lib.require(c->setopt, {"curl_easy_setopt"}), c->lib.require(c->perform, {"curl_easy_perform"}),
                           c->lib.require(c->getinfo, {"curl_easy_getinfo"}), c->lib.require(c->cleanup, {"curl_easy_cleanup"}),
                           c->lib.require(c->strerror, {"curl_easy_strerror"}),
                           c->lib.require(c->slist_append, {"curl_slist_append"}),
                           c->lib.require(c->slist_free_all, {"curl_slist_free_all"})}) {
      if (!r) return make_error(Errc::io, "the libcurl found (" + c->lib.path() + ") is unusable: " + r.error().message);
    }
    if (c->global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) return make_error(Errc::io, "libcurl did not initialise");
    return c;
  }();
  if (!loaded) return make_error(loaded.error());
  return loaded->get();
}

struct Sink {
  std::string body;
  std::size_t limit = 0;
  bool over = false;
};

std::size_t on_data(char* data, std::size_t size, std::size_t n, void* user) {
  Sink& s = *static_cast<Sink*>(user);
  if (s.body.size() + size * n > s.limit) {
    s.over = true;
    return 0;  // aborts the transfer
  }
  s.body.append(data, size * n);
  return size * n;
}

}  // namespace

Result<HttpResponse> https_post_form(const std::string& url, const std::string& path,
                                     const std::vector<std::pair<std::string, std::string>>& fields,
                                     const HttpOptions& opts) {
  Result<const Curl*> cr = curl();
  if (!cr) return make_error(cr.error());
  const Curl& c = **cr;
  std::unique_ptr<CURL, decltype(c.cleanup)> h(c.easy_init(), c.cleanup);
  if (!h) return make_error(Errc::io, "libcurl could not start a transfer");
  curl_slist* headers = nullptr;
  for (const std::string& line : {std::string("Accept: application/json"), std::string("User-Agent: rooftop")})
    headers = c.slist_append(headers, line.c_str());
  for (const std::string& line : opts.headers) headers = c.slist_append(headers, line.c_str());
  std::unique_ptr<curl_slist, decltype(c.slist_free_all)> header_list(headers, c.slist_free_all);

  const std::string target = url + path, body = form_encode(fields);
  Sink sink{std::string(), opts.max_response_bytes, false};
  char errbuf[CURL_ERROR_SIZE] = {0};
  CURL* e = h.get();
  c.setopt(e, CURLOPT_URL, target.c_str());
  c.setopt(e, CURLOPT_PROTOCOLS_STR, "https");
  c.setopt(e, CURLOPT_NOSIGNAL, 1L);
  c.setopt(e, CURLOPT_POSTFIELDS, body.c_str());
  c.setopt(e, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  c.setopt(e, CURLOPT_HTTPHEADER, headers);
  c.setopt(e, CURLOPT_WRITEFUNCTION, &on_data);
  c.setopt(e, CURLOPT_WRITEDATA, &sink);
  c.setopt(e, CURLOPT_ERRORBUFFER, errbuf);
  c.setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(opts.connect_timeout_s * 1000));
  // The longest silence: under one byte per second for read_timeout_s.
  c.setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
  c.setopt(e, CURLOPT_LOW_SPEED_TIME, std::max(1L, static_cast<long>(opts.read_timeout_s)));
  // The system's CAs: libcurl's bundle, or the one SSL_CERT_FILE names (as
  // OpenSSL's own tools, Go and Python read it).
  const char* env_bundle = std::getenv("SSL_CERT_FILE");
  if (!opts.ca_file.empty()) c.setopt(e, CURLOPT_CAINFO, opts.ca_file.c_str());
  else if (env_bundle && env_bundle[0]) c.setopt(e, CURLOPT_CAINFO, env_bundle);
  const CURLcode rc = c.perform(e);
  if (rc != CURLE_OK) {
    const std::string detail = errbuf[0] ? errbuf : c.strerror(rc);
    switch (rc) {
      case CURLE_OPERATION_TIMEDOUT:
        return make_error(Errc::io, fmt::format("timed out after {:g} s waiting for the response ({})", opts.read_timeout_s, detail));
      case CURLE_PEER_FAILED_VERIFICATION:
        return make_error(Errc::io, "the server's certificate does not verify against " +
                                        (opts.ca_file.empty() ? std::string("the system's CAs (give --ca-file)") : opts.ca_file) +
                                        " (" + detail + ")");
      case CURLE_SSL_CACERT_BADFILE:
        if (opts.ca_file.empty()) {
          const char* bundle = env_bundle && env_bundle[0] ? env_bundle : nullptr;
          if (!bundle) c.getinfo(e, CURLINFO_CAINFO, &bundle);
          const std::string path = bundle ? bundle : "/etc/ssl/certs/ca-certificates.crt";
          return make_error(Errc::io, "the system CA bundle " + path +
                                          (access(path.c_str(), R_OK) == 0 ? " is unusable (" + detail + ")" : " is missing") +
                                          " (install ca-certificates) or give --ca-file");
        }
        return make_error(Errc::io, "cannot use the CA file " + opts.ca_file + " (" + detail + ")");
      case CURLE_WRITE_ERROR:
        if (sink.over) return make_error(Errc::io, fmt::format("response larger than {} bytes", opts.max_response_bytes));
        break;
      default: break;
    }
    return make_error(Errc::io, detail);
  }
  long status = 0;
  c.getinfo(e, CURLINFO_RESPONSE_CODE, &status);
  return HttpResponse{static_cast<int>(status), std::move(sink.body)};
}

}  // namespace rooftop::analyze
