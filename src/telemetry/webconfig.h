// The web configuration file of `rooftop monitor --web.config.file`, in
// node_exporter's format (exporter-toolkit): a YAML mapping whose
// `basic_auth_users` maps user names to bcrypt hashes ($2a$, $2b$, $2y$, as
// `htpasswd -nBC 10 USER` writes them), and `tls_server_config` with
// `cert_file` and `key_file` (PEM; relative paths are relative to the
// config file, as in exporter-toolkit). Passwords are checked with the C
// library's crypt(3) (Debian's libxcrypt implements bcrypt); TLS is served
// through telemetry/tls.h. Other TLS settings (client certificates, cipher
// and version choices) and `http_server_config` are not implemented: a file
// that asks for them is refused, never silently served otherwise.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "core/result.h"

namespace rooftop::telemetry {

struct WebConfig {
  std::map<std::string, std::string> basic_auth_users;  // user -> bcrypt hash; empty = no authentication
  std::string tls_cert_file;  // both set: serve TLS; both empty: plain HTTP
  std::string tls_key_file;
};

// `source` names the input in errors ("web.yml:3").
Result<WebConfig> parse_web_config(std::string_view text, const std::string& source);
Result<WebConfig> load_web_config(const std::string& path);

// True when `authorization` (an Authorization header value, "Basic base64(user:password)")
// names a user of `users` with the right password. Slow on purpose (bcrypt).
bool check_basic_auth(const std::map<std::string, std::string>& users, std::string_view authorization);

}  // namespace rooftop::telemetry
