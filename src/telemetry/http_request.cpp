// HTTP/1.1 request head parsing for the /metrics server (see http_request.h).
#include "telemetry/http_request.h"

#include <algorithm>
#include <vector>

#include "core/text.h"

namespace rooftop::telemetry {
namespace {

// RFC 9110 section 5.6.2 tchar.
bool is_tchar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool is_token(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), is_tchar); }

bool ieq(std::string_view a, std::string_view b) { return to_lower(a) == to_lower(b); }

RequestHead refuse(std::size_t consumed, int status, std::string reason) {
  RequestHead r;
  r.status = status;
  r.reason = std::move(reason);
  r.consumed = consumed;
  r.close_after = true;
  return r;
}

// The path of a request target: origin form "/p?q", or absolute form
// "http://authority/p?q" (RFC 9112 section 3.2.2). Empty with `why` set when
// the target is neither.
std::string target_path(std::string_view target, std::string* why) {
  if (!target.empty() && target[0] == '/') return std::string(target.substr(0, target.find('?')));
  const auto sep = target.find("://");
  if (sep == std::string_view::npos) {
    *why = "the request target must be a path (/metrics) or an absolute URL (http://host/metrics)";
    return {};
  }
  const std::string scheme = to_lower(target.substr(0, sep));
  if (scheme != "http" && scheme != "https") {
    *why = "an absolute request target must use http or https, not '" + scheme + "'";
    return {};
  }
  std::string_view rest = target.substr(sep + 3);
  const auto path_at = rest.find_first_of("/?#");
  const std::string_view authority = rest.substr(0, path_at);
  if (authority.empty() || authority.find('@') != std::string_view::npos) {
    *why = "an absolute request target needs a host and no user name";
    return {};
  }
  if (path_at == std::string_view::npos) return "/";
  if (rest[path_at] == '#') {
    *why = "a request target carries no fragment";
    return {};
  }
  rest = rest.substr(path_at);
  std::string path(rest.substr(0, rest.find('?')));
  return path.empty() ? "/" : path;
}

}  // namespace

std::optional<RequestHead> parse_request_head(std::string_view in, std::size_t max_request_bytes) {
  std::size_t end = in.find("\r\n\r\n");
  std::size_t skip = 4;
  if (end == std::string_view::npos) {
    end = in.find("\n\n");
    skip = 2;
  }
  if (end == std::string_view::npos || end > max_request_bytes) {
    if (in.size() > max_request_bytes)
      return refuse(in.size(), 431, "the request head is longer than " + std::to_string(max_request_bytes) + " bytes");
    return std::nullopt;
  }
  const std::size_t consumed = end + skip;
  const std::string_view head = in.substr(0, end);
  for (unsigned char ch : head) {
    if ((ch < 0x20 && ch != '\r' && ch != '\n' && ch != '\t') || ch >= 0x7f)
      return refuse(consumed, 400, "the request head holds a control or non-ASCII byte");
  }
  std::vector<std::string> lines;
  for (std::string& l : split(head, '\n')) {
    if (!l.empty() && l.back() == '\r') l.pop_back();
    lines.push_back(std::move(l));
  }
  const std::vector<std::string> parts = split(lines.empty() ? "" : lines[0], ' ');
  if (parts.size() != 3 || !is_token(parts[0]) || parts[1].empty() || !starts_with(parts[2], "HTTP/"))
    return refuse(consumed, 400, "expected a request line METHOD TARGET HTTP/1.1");
  if (parts[2] != "HTTP/1.1" && parts[2] != "HTTP/1.0")
    return refuse(consumed, 505, "only HTTP/1.0 and HTTP/1.1 are served");
  RequestHead r;
  r.consumed = consumed;
  r.method = parts[0];
  std::string why;
  r.path = target_path(parts[1], &why);
  if (r.path.empty()) return refuse(consumed, 400, why);
  r.close_after = parts[2] == "HTTP/1.0";
  if (lines.size() > kMaxHeaderFields + 1)
    return refuse(consumed, 431, "more than " + std::to_string(kMaxHeaderFields) + " header fields");
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto colon = lines[i].find(':');
    if (colon == std::string::npos || !is_token(std::string_view(lines[i]).substr(0, colon)))
      return refuse(consumed, 400, "a header field must be NAME: VALUE with no space before the colon");
    const std::string name = lines[i].substr(0, colon);
    const std::string val = trim(std::string_view(lines[i]).substr(colon + 1));
    if (ieq(name, "authorization")) r.authorization = val;
    if (ieq(name, "connection")) r.close_after = ieq(val, "close") || (r.close_after && !ieq(val, "keep-alive"));
    if ((ieq(name, "content-length") && val != "0") || ieq(name, "transfer-encoding"))
      return refuse(consumed, 400, "a request body is not accepted here");
  }
  return r;
}

}  // namespace rooftop::telemetry
