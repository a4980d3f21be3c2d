// Web configuration file (node_exporter's format) and HTTP basic auth
// against bcrypt hashes through crypt(3).
#include "telemetry/webconfig.h"

#include <crypt.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include "core/text.h"
#include "core/yaml.h"

namespace rooftop::telemetry {
namespace {

// The cost htpasswd -B accepts (-C 4..17): each step doubles the time of a
// check, so a higher cost would stall start-up and every scrape for minutes.
constexpr int kMinCost = 4, kMaxCost = 17;

// "$2y$CC$" and 53 characters of bcrypt's base64 alphabet, CC in kMinCost..kMaxCost.
bool is_bcrypt(std::string_view hash) {
  if (hash.size() != 60 || !(starts_with(hash, "$2a$") || starts_with(hash, "$2b$") || starts_with(hash, "$2y$")))
    return false;
  if (hash[4] < '0' || hash[4] > '9' || hash[5] < '0' || hash[5] > '9' || hash[6] != '$') return false;
  const int cost = (hash[4] - '0') * 10 + (hash[5] - '0');
  if (cost < kMinCost || cost > kMaxCost) return false;
  return std::all_of(hash.begin() + 7, hash.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '/';
  });
}

// crypt(3) with a per-call state (crypt_r is reentrant; the state is ~32 KiB).
std::string hash_with(const std::string& password, const std::string& setting) {
  auto data = std::make_unique<crypt_data>();
  const char* out = crypt_r(password.c_str(), setting.c_str(), data.get());
  return out && out[0] != '*' ? std::string(out) : std::string();
}

// Compares without an early exit, so the time does not say how much matched.
bool same(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

std::string base64_decode(std::string_view in, bool* ok) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  unsigned bits = 0;
  int n = 0;
  std::size_t i = 0;
  for (; i < in.size() && in[i] != '='; ++i) {
    const int v = value(in[i]);
    if (v < 0) return *ok = false, std::string();
    bits = (bits << 6) | static_cast<unsigned>(v);
    n += 6;
    if (n >= 8) {
      n -= 8;
      out += static_cast<char>((bits >> n) & 0xff);
    }
  }
  for (; i < in.size(); ++i) {
    if (in[i] != '=') return *ok = false, std::string();
  }
  *ok = in.size() % 4 == 0;
  return out;
}

}  // namespace

Result<WebConfig> parse_web_config(std::string_view text, const std::string& source) {
  auto root = load_yaml(text, source);
  if (!root) return make_error(root.error());
  WebConfig cfg;
  if (root->IsNull()) return cfg;  // an empty file: no authentication, as node_exporter reads it
  Diagnostics diag;
  YamlMap top(*root, source, "web config", &diag);
  if (top.valid()) {
    if (top.has("http_server_config")) {
      top.allow("http_server_config");
      top.error(top.raw("http_server_config"),
                "http_server_config is not supported by rooftop monitor (basic_auth_users and tls_server_config "
                "are); leave the key out",
                Errc::unsupported);
    }
    if (auto tls = top.map("tls_server_config")) {
      const std::optional<std::string> cert = tls->str("cert_file", true);
      const std::optional<std::string> key = tls->str("key_file", true);
      const std::string dir = std::filesystem::path(source).parent_path().string();
      auto resolve = [&](const std::string& p) {
        return p.empty() || p[0] == '/' || dir.empty() ? p : (std::filesystem::path(dir) / p).string();
      };
      if (cert && key) {
        cfg.tls_cert_file = resolve(*cert);
        cfg.tls_key_file = resolve(*key);
      }
      // exporter-toolkit's other settings: refused by name rather than ignored.
      for (const char* k : {"cert", "key", "client_auth_type", "client_ca_file", "client_ca", "min_version",
                            "max_version", "cipher_suites", "curve_preferences", "prefer_server_cipher_suites",
                            "client_allowed_sans"}) {
        if (!tls->has(k)) continue;
        tls->allow(k);
        tls->error(tls->raw(k), std::string(k) + " is not supported by rooftop monitor (cert_file and key_file are)",
                   Errc::unsupported);
      }
      tls->finish();
    }
    if (top.has("basic_auth_users")) {
      const YAML::Node users = top.raw("basic_auth_users");
      if (!users.IsMap() && !users.IsNull()) top.error(users, "basic_auth_users must map user names to bcrypt hashes");
      for (auto it = users.begin(); users.IsMap() && it != users.end(); ++it) {
        const std::string user = it->first.Scalar();
        const std::string hash = it->second.IsScalar() ? it->second.Scalar() : "";
        if (user.empty() || user.find(':') != std::string::npos)
          top.error(it->first, "user name '" + user + "' is empty or holds ':'");
        else if (!is_bcrypt(hash) || hash_with("", hash).empty())
          top.error(it->second, "the password of '" + user +
                                    "' is not a bcrypt hash ($2y$..., 60 characters, cost 4 to 17; make one with htpasswd -nBC 10 " +
                                    user + ")");
        else
          cfg.basic_auth_users[user] = hash;
      }
    }
    top.finish();
  }
  ROOFTOP_TRY(diag.to_result());
  return cfg;
}

Result<WebConfig> load_web_config(const std::string& path) {
  auto text = read_file(path);
  if (!text) return make_error(text.error().code, "cannot read the web config file", path);
  return parse_web_config(*text, path);
}

bool check_basic_auth(const std::map<std::string, std::string>& users, std::string_view authorization) {
  const std::string value = trim(authorization);
  if (value.size() < 6 || to_lower(value.substr(0, 6)) != "basic ") return false;
  bool ok = false;
  const std::string pair = base64_decode(trim(std::string_view(value).substr(6)), &ok);
  const auto colon = pair.find(':');
  if (!ok || colon == std::string::npos) return false;
  const auto it = users.find(pair.substr(0, colon));
  // An unknown user costs a bcrypt too, so the answer time does not tell which users exist.
  static const std::string kDecoy = hash_with("", "$2y$10$abcdefghijklmnopqrstuu");
  const std::string& hash = it == users.end() ? kDecoy : it->second;
  const std::string got = hash_with(pair.substr(colon + 1), hash);
  return it != users.end() && !got.empty() && same(got, hash);
}

}  // namespace rooftop::telemetry
