#include "core/text.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

namespace rooftop {

std::string to_lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::size_t edit_distance(std::string_view a_in, std::string_view b_in) {
  std::string a = to_lower(a_in), b = to_lower(b_in);
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::vector<std::string> closest_matches(std::string_view query, const std::vector<std::string>& candidates,
                                         std::size_t max) {
  std::string q = to_lower(query);
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const std::string& c : candidates) {
    std::string lc = to_lower(c);
    std::size_t d = edit_distance(q, lc);
    if (!q.empty() && lc.find(q) != std::string::npos) d = 0;  // "h100" -> every h100 variant
    std::size_t limit = std::max<std::size_t>(2, std::max(q.size(), lc.size()) / 2);
    if (d <= limit) scored.emplace_back(d, c);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& x, const auto& y) {
    return x.first != y.first ? x.first < y.first : x.second < y.second;
  });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && out.size() < max; ++i) out.push_back(scored[i].second);
  return out;
}

std::string did_you_mean(std::string_view what, std::string_view query, const std::vector<std::string>& candidates) {
  std::string msg = "unknown " + std::string(what) + " '" + std::string(query) + "'";
  std::vector<std::string> near = closest_matches(query, candidates);
  if (!near.empty()) {
    msg += "; did you mean: ";
    for (std::size_t i = 0; i < near.size(); ++i) msg += (i ? ", " : "") + near[i];
    msg += "?";
  }
  return msg;
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    std::size_t pos = s.find(sep, start);
    out.emplace_back(s.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return out;
}

std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::string si(double value, std::string_view unit) {
  static const char* kPrefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  double v = value;
  int idx = 0;
  while (std::fabs(v) >= 1000.0 && idx < 6) {
    v /= 1000.0;
    ++idx;
  }
  char buf[64];
  if (std::fabs(v) >= 100 || v == 0) std::snprintf(buf, sizeof buf, "%.0f", v);
  else if (std::fabs(v) >= 10) std::snprintf(buf, sizeof buf, "%.1f", v);
  else std::snprintf(buf, sizeof buf, "%.2f", v);
  std::string out = buf;
  if (idx > 0 || !unit.empty()) out += " ";
  out += kPrefixes[idx];
  out += unit;
  return out;
}

std::string plain(double value, int digits) {
  char buf[64];
  const double a = std::fabs(value);
  if (a == 0 || !std::isfinite(value)) {
    std::snprintf(buf, sizeof buf, "%g", value);
  } else if (a >= std::pow(10.0, digits)) {
    std::snprintf(buf, sizeof buf, "%.0f", value);
  } else {
    // Decimals so that `digits` significant digits show, then trailing zeros dropped.
    const int decimals = std::clamp(digits - 1 - static_cast<int>(std::floor(std::log10(a))), 0, 12);
    std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
    std::string t = buf;
    if (t.find('.') != std::string::npos) {
      while (t.back() == '0') t.pop_back();
      if (t.back() == '.') t.pop_back();
    }
    return t;
  }
  return buf;
}

std::string usd(double value) { return (value < 0 ? "-$" : "$") + si(std::fabs(value)); }

std::string usd_per_hour(double value) {
  if (std::fabs(value) >= 100) return usd(value) + "/h";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s$%.2f/h", value < 0 ? "-" : "", std::fabs(value));
  return buf;
}

std::string iec_bytes(double bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int idx = 0;
  double v = bytes;
  while (std::fabs(v) >= 1024.0 && idx < 5) {
    v /= 1024.0;
    ++idx;
  }
  char buf[64];
  if (idx == 0) std::snprintf(buf, sizeof buf, "%.0f B", v);
  else std::snprintf(buf, sizeof buf, "%.2f %s", v, kUnits[idx]);
  return buf;
}

std::string human_seconds(double s) {
  char buf[64];
  double a = std::fabs(s);
  if (a == 0) return "0 s";
  if (a < 1e-6) std::snprintf(buf, sizeof buf, "%.3g ns", s * 1e9);
  else if (a < 1e-3) std::snprintf(buf, sizeof buf, "%.3g us", s * 1e6);
  else if (a < 1) std::snprintf(buf, sizeof buf, "%.3g ms", s * 1e3);
  else if (a < 120) std::snprintf(buf, sizeof buf, "%.3g s", s);
  else if (a < 7200) std::snprintf(buf, sizeof buf, "%.3g min", s / 60);
  else if (a < 172800) std::snprintf(buf, sizeof buf, "%.3g h", s / 3600);
  else if (a < 86400 * 999.5) std::snprintf(buf, sizeof buf, "%.3g days", s / 86400);
  else std::snprintf(buf, sizeof buf, "%.0f days", s / 86400);
  return buf;
}

std::optional<long long> parse_int(std::string_view text) {
  std::string t = trim(text);
  long long v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size() || t.empty()) return std::nullopt;
  return v;
}

std::optional<double> parse_double(std::string_view text) {
  std::string t = trim(text);
  if (t.empty()) return std::nullopt;
  double v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

namespace {
// Splits "12.5GiB" into 12.5 and "GiB".
bool split_number_unit(std::string_view text, double& number, std::string& unit) {
  std::string t = trim(text);
  std::size_t i = 0;
  while (i < t.size() && (std::isdigit(static_cast<unsigned char>(t[i])) || t[i] == '.' || t[i] == 'e' ||
                          t[i] == 'E' || ((t[i] == '-' || t[i] == '+') && i > 0 && (t[i - 1] == 'e' || t[i - 1] == 'E')))) {
    // 'e' only counts as an exponent when followed by a digit or sign.
    if ((t[i] == 'e' || t[i] == 'E') &&
        !(i + 1 < t.size() && (std::isdigit(static_cast<unsigned char>(t[i + 1])) || t[i + 1] == '-' || t[i + 1] == '+')))
      break;
    ++i;
  }
  auto n = parse_double(std::string_view(t).substr(0, i));
  if (!n) return false;
  number = *n;
  unit = trim(std::string_view(t).substr(i));
  return true;
}
}  // namespace

Result<double> parse_duration(std::string_view text) {
  double n = 0;
  std::string unit;
  if (!split_number_unit(text, n, unit) || n < 0)
    return make_error(Errc::invalid_input, "expected a duration such as 500ms, 1s, 5m, 6h, 7d, got '" +
                                               std::string(text) + "'");
  static const std::pair<const char*, double> kUnits[] = {
      {"", 1}, {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}, {"m", 60}, {"min", 60},
      {"h", 3600}, {"d", 86400}, {"w", 604800}, {"y", 365 * 86400.0}};
  for (const auto& [u, mult] : kUnits) {
    if (unit == u) return n * mult;
  }
  return make_error(Errc::invalid_input,
                    "unknown duration unit '" + unit + "' in '" + std::string(text) + "' (use ms, s, m, h, d, w)");
}

Result<double> parse_bytes(std::string_view text) {
  double n = 0;
  std::string unit;
  if (!split_number_unit(text, n, unit) || n < 0)
    return make_error(Errc::invalid_input, "expected a size such as 4096, 64KiB, 2GiB, got '" + std::string(text) + "'");
  static const std::pair<const char*, double> kUnits[] = {
      {"", 1},       {"B", 1},       {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0},
      {"TiB", 1099511627776.0},       {"kB", 1e3},     {"KB", 1e3},        {"MB", 1e6},
      {"GB", 1e9},   {"TB", 1e12},   {"K", 1024.0},   {"M", 1048576.0},   {"G", 1073741824.0}};
  for (const auto& [u, mult] : kUnits) {
    if (unit == u) return n * mult;
  }
  return make_error(Errc::invalid_input, "unknown size unit '" + unit + "' in '" + std::string(text) + "'");
}

}  // namespace rooftop
