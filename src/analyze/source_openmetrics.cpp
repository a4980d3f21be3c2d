// Reading an OpenMetrics text file with timestamps (what `rooftop trace
// synth fleet` writes for promtool, or an export of a Prometheus' series):
// the same device identity and signals as the Prometheus source, without a
// server. Families are contiguous in OpenMetrics, so a device's signals
// arrive one family after another and are joined by timestamp in memory:
// for files of a few million samples; a fleet's weeks belong in Prometheus.
#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analyze/series.h"
#include "analyze/sources.h"
#include "core/text.h"

namespace rooftop::analyze {

namespace {

// Timestamps past this (the year 2286) are not Unix seconds: a millisecond
// exposition, or garbage whose span would make the profile's buckets huge.
constexpr double kMaxUnixSeconds = 1e10;

// name{a="x",b="y"} value timestamp -> its parts; false with `why` on garbage.
bool parse_sample(std::string_view s, std::string& name, std::map<std::string, std::string>& labels, double& value,
                  std::optional<double>& ts, std::string& why) {
  std::size_t i = 0;
  while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' || s[i] == ':')) ++i;
  if (i == 0 || std::isdigit(static_cast<unsigned char>(s[0]))) {
    why = "expected a metric name";
    return false;
  }
  name = std::string(s.substr(0, i));
  labels.clear();
  if (i < s.size() && s[i] == '{') {
    ++i;
    while (i < s.size() && s[i] != '}') {
      std::size_t k = i;
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
      if (i == k || i + 1 >= s.size() || s[i] != '=' || s[i + 1] != '"') {
        why = "expected label=\"value\"";
        return false;
      }
      std::string key(s.substr(k, i - k)), val;
      for (i += 2; i < s.size() && s[i] != '"'; ++i) {
        if (s[i] == '\\' && i + 1 < s.size()) {
          ++i;
          val += s[i] == 'n' ? '\n' : s[i];
        } else {
          val += s[i];
        }
      }
      if (i >= s.size()) {
        why = "unterminated label value";
        return false;
      }
      labels[key] = val;
      ++i;
      if (i < s.size() && s[i] == ',') ++i;
    }
    if (i >= s.size()) {
      why = "unterminated label set";
      return false;
    }
    ++i;
  }
  std::vector<std::string> rest = split(trim(s.substr(i)), ' ');
  if (rest.empty() || rest.size() > 2 || (i < s.size() && s[i] != ' ')) {
    why = "expected NAME{LABELS} VALUE TIMESTAMP";
    return false;
  }
  std::optional<double> v = parse_double(rest[0]);
  if (!v && rest[0] != "NaN" && rest[0] != "+Inf" && rest[0] != "-Inf") {
    why = "'" + rest[0] + "' is not a number";
    return false;
  }
  value = v.value_or(NAN);
  ts.reset();
  if (rest.size() == 2) {
    ts = parse_double(rest[1]);
    if (!ts) {
      why = "'" + rest[1] + "' is not a timestamp";
      return false;
    }
  }
  return true;
}

}  // namespace

Result<Profiles> profile_openmetrics(const std::string& path, const TimeRange& range, const Matcher& match) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(Errc::invalid_input, "cannot read the file", "--openmetrics " + path);
  return profile_openmetrics(in, path, range, match);
}

Result<Profiles> profile_openmetrics(std::istream& in, const std::string& path, const TimeRange& range,
                                     const Matcher& match) {
  // Which family is which signal, in either name set.
  std::map<std::string, std::pair<Signal, double>> device_families;
  for (const SeriesName& n : kDeviceSeries) {
    device_families[n.dcgm] = {n.signal, n.dcgm_scale};
    device_families[n.rooftop] = {n.signal, n.rooftop_scale};
  }
  struct Dev {
    DeviceKey key;
    std::string instance;
    std::map<double, Obs> obs;
  };
  std::map<std::string, Dev> devs;
  std::map<std::string, std::map<double, std::pair<float, float>>> host_obs;  // instance -> t -> (cpu, iowait)
  std::string line, name, why;
  std::map<std::string, std::string> labels;
  std::size_t n = 0;
  bool eof = false;
  auto bad = [&](const std::string& what) {
    return make_error(Errc::invalid_input, what, fmt::format("--openmetrics {}:{}", path, n));
  };
  while (std::getline(in, line)) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (eof) return bad("text after # EOF");
    if (line == "# EOF") {
      eof = true;
      continue;
    }
    if (line.empty()) return bad("an empty line (not allowed in OpenMetrics)");
    if (line[0] == '#') continue;  // HELP, TYPE, UNIT
    double value = 0;
    std::optional<double> ts;
    if (!parse_sample(line, name, labels, value, ts, why)) return bad(why);
    if (!ts) return bad("a sample without a timestamp: analyze needs history");
    if (!(*ts >= 0 && *ts < kMaxUnixSeconds))
      return bad(fmt::format("timestamp {} is not Unix seconds in 1970..2286{}", *ts,
                             *ts >= kMaxUnixSeconds && *ts < kMaxUnixSeconds * 1000 ? " (milliseconds? OpenMetrics counts seconds)" : ""));
    if (range.from_s && *ts < *range.from_s) continue;
    if (range.to_s && *ts > *range.to_s) continue;
    if (name == kHostCpuSeries || name == kHostIowaitSeries) {
      auto& slot = host_obs[labels["instance"]].try_emplace(*ts, NAN, NAN).first->second;
      (name == kHostCpuSeries ? slot.first : slot.second) = static_cast<float>(value * 100);
      continue;
    }
    auto fam = device_families.find(name);
    if (fam == device_families.end()) continue;
    const bool dcgm = name.rfind("DCGM_", 0) == 0;
    const IdentityLabels& ids = dcgm ? kDcgmLabels : kRooftopLabels;
    bool wanted = true;
    for (const auto& [k, v] : match.labels) {
      std::string lk = k == "host" ? ids.host : k == "uuid" ? ids.uuid : k == "model" ? ids.model : k;
      auto it = labels.find(lk);
      wanted = wanted && it != labels.end() && it->second == v;
    }
    if (!wanted) continue;
    std::string host = labels.count(ids.host) ? labels[ids.host] : labels["instance"];
    std::string id = host + "/gpu" + labels["gpu"];
    Dev& d = devs[id];
    if (d.key.host.empty()) {
      d.key.host = host;
      d.key.gpu = static_cast<int>(parse_int(labels["gpu"]).value_or(0));
      d.key.uuid = labels[ids.uuid];
      d.key.model = labels[ids.model];
      d.key.ns = labels["namespace"];
      d.key.pod = labels["pod"];
      if (!d.key.pod.empty()) d.key.job = (d.key.ns.empty() ? "" : d.key.ns + "/") + d.key.pod;
      d.instance = labels["instance"];
    }
    if (std::isnan(value)) continue;
    Obs& o = d.obs[*ts];
    o.t_s = *ts;
    set_signal(o, fam->second.first, value * fam->second.second);  // fb_free: the total below
  }
  if (in.bad()) return make_error(Errc::io, "read error", "--openmetrics " + path);
  if (!eof) return make_error(Errc::invalid_input, "no '# EOF' line: the file is cut short", "--openmetrics " + path);
  double lo = INFINITY, hi = -INFINITY, step = 0;
  for (const auto& [id, d] : devs) {
    if (d.obs.empty()) continue;
    lo = std::min(lo, d.obs.begin()->first);
    hi = std::max(hi, d.obs.rbegin()->first);
    if (d.obs.size() > 1 && step == 0)
      step = (d.obs.rbegin()->first - d.obs.begin()->first) / static_cast<double>(d.obs.size() - 1);
  }
  if (!(hi >= lo))
    return make_error(Errc::invalid_input,
                      "no accelerator samples" + std::string(match.labels.empty() ? "" : " matching --match") +
                          (range.from_s || range.to_s ? " in the window" : ""),
                      "--openmetrics " + path);
  step = std::max(step, 1e-3);
  Profiler prof(range.from_s.value_or(lo), range.to_s.value_or(hi) + step, step);
  std::map<std::string, std::string> host_of_instance;
  for (auto& [id, d] : devs) {
    const int idx = prof.add_device(d.key);
    host_of_instance[d.instance] = d.key.host;
    for (auto& [t, o] : d.obs) {
      if (!std::isnan(o.fb_used_bytes) && !std::isnan(o.fb_total_bytes)) o.fb_total_bytes += o.fb_used_bytes;
      else o.fb_total_bytes = NAN;
      prof.add(idx, o);
    }
  }
  for (const auto& [inst, points] : host_obs) {
    auto h = host_of_instance.find(inst);
    if (h == host_of_instance.end()) continue;
    for (const auto& [t, v] : points) prof.add_host(h->second, t, v.first, v.second);
  }
  return prof.finish();
}

}  // namespace rooftop::analyze
