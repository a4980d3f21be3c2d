// The --web.config.file reader (telemetry/webconfig.h) on arbitrary YAML:
// a WebConfig or an Error, never a crash, an exception, a leak or a hang
// (bcrypt costs are bounded). With users, a Basic header from the input's
// first line is checked against them too.
#include "telemetry/webconfig.h"
#include "fuzz_input.h"

using rooftop::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in = rooftop::fuzz::text(data, size);
  auto cfg = rooftop::telemetry::parse_web_config(in, "fuzz/web.yml");
  if (!rooftop::fuzz::explained(cfg)) return 0;
  check(cfg->tls_cert_file.empty() == cfg->tls_key_file.empty(), "TLS needs both files or neither");
  for (const auto& [user, hash] : cfg->basic_auth_users) {
    check(!user.empty() && user.find(':') == std::string::npos, "user names are non-empty without ':'");
    check(hash.size() == 60, "a bcrypt hash is 60 characters");
  }
  if (!cfg->basic_auth_users.empty() && size < 200) {
    rooftop::telemetry::check_basic_auth(cfg->basic_auth_users, in.substr(0, in.find('\n')));
  }
  return 0;
}
