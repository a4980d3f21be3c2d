// Web config file (node_exporter's format) and basic auth against bcrypt.
#include <gtest/gtest.h>

#include "telemetry/webconfig.h"

namespace rooftop::telemetry {
namespace {

// bcrypt (cost 10) of "s3cret", made once with crypt(3) as `htpasswd -nbBC 10 alice s3cret` would.
constexpr const char* kAliceHash = "$2y$10$BGNHjAXNcp9kM0W2o7c8ZexOwwSmnkFD3xP9dvZT.0/mLA6khsVFG";

TEST(WebConfig, ReadsBasicAuthUsers) {
  auto cfg = parse_web_config(std::string("basic_auth_users:\n  alice: ") + kAliceHash + "\n", "web.yml");
  ASSERT_TRUE(cfg) << cfg.error().what();
  ASSERT_EQ(cfg->basic_auth_users.size(), 1u);
  EXPECT_EQ(cfg->basic_auth_users.at("alice"), kAliceHash);
  auto empty = parse_web_config("", "web.yml");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->basic_auth_users.empty());
}

TEST(WebConfig, ReadsTlsFilesRelativeToTheConfig) {
  auto tls = parse_web_config("tls_server_config:\n  cert_file: a.crt\n  key_file: /etc/b.key\n", "/srv/web.yml");
  ASSERT_TRUE(tls) << tls.error().what();
  EXPECT_EQ(tls->tls_cert_file, "/srv/a.crt");
  EXPECT_EQ(tls->tls_key_file, "/etc/b.key");
  auto none = parse_web_config("basic_auth_users: {}\n", "/srv/web.yml");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->tls_cert_file.empty());
}

TEST(WebConfig, BadInputNamesTheFileLineAndKey) {
  auto plain = parse_web_config("basic_auth_users:\n  alice: s3cret\n", "web.yml");
  ASSERT_FALSE(plain);
  EXPECT_EQ(plain.error().code, Errc::invalid_input);
  EXPECT_NE(plain.error().what().find("web.yml:2"), std::string::npos) << plain.error().what();
  EXPECT_NE(plain.error().what().find("not a bcrypt hash"), std::string::npos) << plain.error().what();
  auto http = parse_web_config("http_server_config:\n  http2: false\n", "web.yml");
  ASSERT_FALSE(http);
  EXPECT_NE(http.error().what().find("http_server_config is not supported"), std::string::npos) << http.error().what();
  auto mtls = parse_web_config("tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n  min_version: TLS13\n",
                               "web.yml");
  ASSERT_FALSE(mtls);
  EXPECT_NE(mtls.error().what().find("web.yml:4"), std::string::npos) << mtls.error().what();
  EXPECT_NE(mtls.error().what().find("min_version is not supported"), std::string::npos) << mtls.error().what();
  auto typo = parse_web_config("basic_auth_user:\n  alice: x\n", "web.yml");
  ASSERT_FALSE(typo);
  EXPECT_NE(typo.error().what().find("basic_auth_user"), std::string::npos);
  EXPECT_FALSE(parse_web_config("basic_auth_users: [alice]\n", "web.yml"));
  EXPECT_FALSE(parse_web_config("basic_auth_users: {alice: ", "web.yml"));  // YAML syntax
  auto missing = load_web_config("/nonexistent/web.yml");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().what().find("/nonexistent/web.yml"), std::string::npos);
}

// A bcrypt cost past htpasswd's 4..17 is refused without running it: cost 31
// (2^31 rounds) would hold start-up, and each scrape's check, for days.
TEST(WebConfig, BcryptCostsPastHtpasswdsRangeAreRefusedAtOnce) {
  for (const char* cost : {"31", "18", "03", "1x"}) {
    std::string hash = kAliceHash;
    hash.replace(4, 2, cost);
    auto cfg = parse_web_config("basic_auth_users:\n  alice: " + hash + "\n", "web.yml");
    ASSERT_FALSE(cfg) << cost;
    EXPECT_NE(cfg.error().what().find("cost 4 to 17"), std::string::npos) << cfg.error().what();
  }
  std::string odd_alphabet = kAliceHash;
  odd_alphabet[20] = '!';
  EXPECT_FALSE(parse_web_config("basic_auth_users:\n  alice: '" + odd_alphabet + "'\n", "web.yml"));
}

TEST(WebConfig, ChecksBasicAuthWithBcrypt) {
  const std::map<std::string, std::string> users = {{"alice", kAliceHash}};
  EXPECT_TRUE(check_basic_auth(users, "Basic YWxpY2U6czNjcmV0"));    // alice:s3cret
  EXPECT_TRUE(check_basic_auth(users, "basic  YWxpY2U6czNjcmV0 "));  // scheme is case-insensitive
  EXPECT_FALSE(check_basic_auth(users, "Basic YWxpY2U6d3Jvbmc="));   // alice:wrong
  EXPECT_FALSE(check_basic_auth(users, "Basic Ym9iOnMzY3JldA=="));   // bob:s3cret
  EXPECT_FALSE(check_basic_auth(users, "Basic YWxpY2U="));           // alice (no colon)
  EXPECT_FALSE(check_basic_auth(users, "Basic !!!!"));
  EXPECT_FALSE(check_basic_auth(users, "Bearer YWxpY2U6czNjcmV0"));
  EXPECT_FALSE(check_basic_auth(users, ""));
}

}  // namespace
}  // namespace rooftop::telemetry
