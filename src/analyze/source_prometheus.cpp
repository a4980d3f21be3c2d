// Reading a fleet's history from a Prometheus server's HTTP API, in two
// passes so that a 1,000-device fleet costs the server the work and analyze
// a few megabytes (docs/analyze.md, "Prometheus"):
//  1. screen: instant queries of window aggregates for every device
//     (count_over_time, avg_over_time, quantile_over_time, max_over_time, and
//     the memory-fraction recording rule when the server has it);
//  2. read: query_range points, of only the signals a detector needs, for
//     only the devices the aggregates say a detector could flag.
// A device no detector can flag keeps its aggregates (DeviceProfile::
// screened_*), so the fleet summary still lists it.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "analyze/http.h"
#include "analyze/prometheus_json.h"
#include "analyze/series.h"
#include "analyze/sources.h"
#include "core/text.h"
#include "deploy/metric_names.h"

namespace rooftop::analyze {

namespace {

struct Client {
  bool https = false;
  std::string host;
  int port = 80;
  std::string base;    // scheme://host:port, for libcurl
  std::string prefix;  // path before /api/v1 ("/prometheus" behind Mimir), "" at the root
  std::string url;     // as given
  HttpOptions http;
};

Result<Client> connect(const std::string& url, const PrometheusOptions& opts) {
  static const std::regex kUrl(R"(^(https?)://([^/:\[\]]+|\[[0-9a-fA-F:.]+\])(:([0-9]{1,5}))?(/[^?#]*)?$)");
  std::smatch m;
  if (!std::regex_match(url, m, kUrl))
    return make_error(Errc::invalid_input, "expected http[s]://HOST[:PORT][/PATH]", "--prometheus " + url);
  Client c;
  c.https = m[1].str() == "https";
  c.host = m[2].str();
  c.port = m[4].matched ? std::stoi(m[4].str()) : (c.https ? 443 : 80);
  if (c.port < 1 || c.port > 65535) return make_error(Errc::invalid_input, "port out of range", "--prometheus " + url);
  c.base = m[1].str() + "://" + c.host + ":" + std::to_string(c.port);
  if (c.host.front() == '[') c.host = c.host.substr(1, c.host.size() - 2);
  c.prefix = m[5].str();
  while (!c.prefix.empty() && c.prefix.back() == '/') c.prefix.pop_back();
  c.url = url;
  c.http.read_timeout_s = opts.timeout_s;
  c.http.connect_timeout_s = std::min(opts.timeout_s, 10.0);
  c.http.ca_file = opts.ca_file;
  if (!opts.ca_file.empty() && !c.https)
    return make_error(Errc::invalid_input, "a CA file is for https; this URL is http", "--ca-file " + opts.ca_file);
  if (!opts.bearer_token.empty() && !opts.basic_user.empty())
    return make_error(Errc::invalid_input, "give a bearer token or basic auth, not both", "--bearer-token-file");
  if (!opts.bearer_token.empty()) c.http.headers.push_back("Authorization: Bearer " + opts.bearer_token);
  if (!opts.basic_user.empty()) c.http.headers.push_back("Authorization: " + basic_authorization(opts.basic_user, opts.basic_password));
  return c;
}

// POSTs one API call; returns data.result (a JSON array).
Result<nlohmann::json> call(Client& c, const char* api, std::vector<std::pair<std::string, std::string>> fields) {
  const std::string q = fields.front().second;
  fields.emplace_back("timeout", fmt::format("{:g}s", c.http.read_timeout_s));
  const std::string path = c.prefix + "/api/v1/" + api;
  Result<HttpResponse> res = c.https ? https_post_form(c.base, path, fields, c.http)
                                     : http_post_form(c.host, c.port, path, fields, c.http);
  if (!res)
    return make_error(Errc::invalid_input, "cannot reach Prometheus (" + res.error().message + ")", "--prometheus " + c.url);
  if (res->status == 401 || res->status == 403)
    return make_error(Errc::invalid_input,
                      fmt::format("Prometheus refused the credentials (HTTP {}){}", res->status,
                                  c.http.headers.empty() ? ": give --bearer-token-file or --basic-auth" : ""),
                      "--prometheus " + c.url);
  return api_result(res->body, res->status, api, q, "--prometheus " + c.url);
}

Result<nlohmann::json> query_range(Client& c, const std::string& q, double from, double to, double step) {
  return call(c, "query_range",
              {{"query", q}, {"start", fmt::format("{:.3f}", from)}, {"end", fmt::format("{:.3f}", to)}, {"step", fmt::format("{}", step)}});
}

std::string quote(const std::string& v) {
  std::string escaped;
  for (char ch : v) {
    if (ch == '"' || ch == '\\') escaped += '\\';
    escaped += ch;
  }
  return "\"" + escaped + "\"";
}

// A regex that matches exactly these values.
std::string alternation(const std::vector<std::string>& values) {
  std::string out;
  for (const std::string& v : values) {
    std::string esc;
    for (char ch : v) {
      if (std::string_view(".+*?()|[]{}^$\\").find(ch) != std::string_view::npos) esc += '\\';
      esc += ch;
    }
    out += (out.empty() ? "" : "|") + esc;
  }
  return out;
}

// PromQL label matchers for --match, with our names translated to the exported ones.
std::string matchers(const Matcher& m, const IdentityLabels& ids) {
  std::string out;
  for (const auto& [k, v] : m.labels) {
    std::string name = k;
    if (k == "host") name = ids.host;
    else if (k == "uuid") name = ids.uuid;
    else if (k == "model") name = ids.model;
    out += (out.empty() ? "" : ",") + name + "=" + quote(v);
  }
  return out;
}

std::string braces(const std::string& a, const std::string& b = "") {
  return "{" + a + (a.empty() || b.empty() ? "" : ",") + b + "}";
}

// One value per device from an instant query's vector.
Result<std::map<std::string, double>> per_device(Client& c, const std::string& q, double at, const IdentityLabels& ids) {
  Result<nlohmann::json> r = call(c, "query", {{"query", q}, {"time", fmt::format("{:.3f}", at)}});
  if (!r) return make_error(r.error());
  return instant_values(*r, ids, "--prometheus " + c.url);
}

struct Device {
  DeviceKey key;
  std::string instance;
  double count = 0, mean = NAN, p95 = NAN, mem_max = NAN, temp_max = NAN, reasons_max = NAN, held_down_max = NAN;
  std::set<Signal> need;  // signals to read in full; empty = aggregates only
  bool host_series = false;
};

double get(const std::map<std::string, double>& m, const std::string& id) {
  auto it = m.find(id);
  return it == m.end() ? NAN : it->second;
}

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// Which devices a detector could flag, from the window aggregates; what it
// needs to read for them. Each test is a superset of its detector's
// condition (margins cover the difference between Prometheus' interpolated
// quantile and the detectors' 1 % histogram).
void choose(std::map<std::string, Device>& devs, const std::map<std::string, std::pair<double, double>>& host_max,
            const Thresholds& t) {
  constexpr double kMargin = 5;  // utilisation points
  std::map<std::string, std::vector<Device*>> groups;
  for (auto& [id, d] : devs) {
    groups[d.key.job.empty() ? "host:" + d.key.host : "job:" + d.key.job].push_back(&d);
    if (d.p95 < t.underused_p95_pct + kMargin) d.need.insert(Signal::util);  // idle, underused
    bool pressure = d.mem_max >= t.mem_pressure_frac;
    bool headroom = d.mem_max < t.mem_headroom_frac && d.mean >= t.mem_headroom_min_util_pct - kMargin;
    if (pressure || headroom) d.need.insert({Signal::util, Signal::fb_used});
    // The held-down rule, else any reason bit from 0x4 up (the throttle mask
    // starts there); the clock path needs the device hot (or at its power
    // limit, which Prometheus does not tell us).
    bool held = std::isnan(d.held_down_max) ? d.reasons_max >= 4 : d.held_down_max >= 1;
    if (held || d.temp_max >= t.throttle_temp_c)
      d.need.insert({Signal::util, Signal::temp, Signal::power, Signal::clock, Signal::throttle});
    auto h = host_max.find(d.instance);
    if (h != host_max.end() && (h->second.first * 100 >= t.io_cpu_pct || h->second.second * 100 >= t.io_iowait_pct)) {
      d.need.insert(Signal::util);
      d.host_series = true;
    }
  }
  // A straggler's mean sits away from its peers'; read the whole group.
  for (auto& [g, members] : groups) {
    if (members.size() < 3) continue;
    std::vector<double> means;
    for (const Device* d : members) means.push_back(d->mean);
    double mid = median(means);
    bool odd = false;
    for (const Device* d : members) {
      if (d->p95 >= t.underused_p95_pct && std::fabs(d->mean - mid) >= t.straggler_gap_pct / 3) odd = true;
    }
    if (!odd) continue;
    for (Device* d : members) d->need.insert({Signal::util, Signal::clock});
  }
}

// Reads query_range points of `name` for a batch of devices into their observations.
Result<void> read_points(Client& c, const std::string& q, double from, double to, double step, double scale, Signal signal,
                         const IdentityLabels& ids, std::map<std::string, std::map<double, Obs>>& obs) {
  Result<nlohmann::json> res = query_range(c, q, from, to, step);
  if (!res) return make_error(res.error());
  return matrix_points(*res, scale, signal, ids, obs, "--prometheus " + c.url);
}

}  // namespace

Result<Profiles> profile_prometheus(const std::string& url, const TimeRange& range, const Matcher& match,
                                    const ProgressFn& progress, const Thresholds& t, const PrometheusOptions& opts) {
  Result<Client> cr = connect(url, opts);
  if (!cr) return make_error(cr.error());
  Client& c = *cr;
  double to = range.to_s.value_or(static_cast<double>(std::time(nullptr)));
  double from = range.from_s.value_or(to - 3600);
  if (!(to > from)) return make_error(Errc::invalid_input, "the time window is empty", "--from/--to");
  // The range selectors cover (to - window, to]; query_range answers at most
  // 11,000 points per series.
  const std::string window = fmt::format("[{:.0f}s]", std::ceil(to - from));
  const double max_step = std::max(1.0, std::ceil((to - from) / 10000));
  auto report = [&](double f, const std::string& what) {
    if (progress) progress(f, what);
  };

  // 1. Screen. Which name set does this server hold?
  bool dcgm = true;
  IdentityLabels ids = kDcgmLabels;
  report(0, "screening");
  Result<nlohmann::json> counted =
      call(c, "query", {{"query", fmt::format("count_over_time({}{}{})", series(Signal::util).dcgm, braces(matchers(match, ids)), window)},
                        {"time", fmt::format("{:.3f}", to)}});
  if (!counted) return make_error(counted.error());
  if (counted->empty()) {
    dcgm = false;
    ids = kRooftopLabels;
    counted = call(c, "query", {{"query", fmt::format("count_over_time({}{}{})", series(Signal::util).rooftop,
                                                       braces(matchers(match, ids)), window)},
                                {"time", fmt::format("{:.3f}", to)}});
    if (!counted) return make_error(counted.error());
    if (counted->empty())
      return make_error(Errc::invalid_input,
                        "no accelerator series in " + format_time(from) + " .. " + format_time(to) + " (neither " +
                            series(Signal::util).dcgm + " nor " + series(Signal::util).rooftop +
                            (match.labels.empty() ? "" : " matching " + braces(matchers(match, kDcgmLabels))) +
                            "): empty window or unknown labels",
                        "--prometheus " + url);
  }
  auto name = [&](Signal f) { return std::string(dcgm ? series(f).dcgm : series(f).rooftop); };
  auto scale = [&](Signal f) { return dcgm ? series(f).dcgm_scale : series(f).rooftop_scale; };
  const std::string sel = braces(matchers(match, ids));

  std::map<std::string, Device> devs;
  for (const nlohmann::json& s : *counted) {
    const nlohmann::json metric = metric_of(s);
    SeriesId sid = series_id(metric, ids);
    Device& d = devs[sid.id];
    d.key.host = sid.host;
    d.key.gpu = static_cast<int>(parse_int(label(metric, "gpu")).value_or(0));
    d.key.uuid = label(metric, ids.uuid);
    d.key.model = label(metric, ids.model);
    d.key.ns = label(metric, "namespace");
    d.key.pod = label(metric, "pod");
    if (!d.key.pod.empty()) d.key.job = (d.key.ns.empty() ? "" : d.key.ns + "/") + d.key.pod;
    d.instance = sid.instance;
    std::optional<double> count;
    if (sample_value(s, &count)) d.count = count.value_or(0);
  }
  const double util_scale = scale(Signal::util);
  // The recording rules `rooftop deploy monitor` writes, where the server has them.
  std::vector<std::string> notes;
  auto has_rule = [&](const char* rule) -> Result<bool> {
    Result<std::map<std::string, double>> r = per_device(c, fmt::format("count_over_time({}{}{})", rule, sel, window), to, ids);
    if (!r) return make_error(r.error());
    if (!r->empty()) notes.push_back(fmt::format("recording rule {} used", rule));
    return !r->empty();
  };
  Result<bool> mem_rule = has_rule(deploy::kMemoryUsedRatioRule);
  if (!mem_rule) return make_error(mem_rule.error());
  Result<bool> held_rule = has_rule(deploy::kClocksHeldDownRule);
  if (!held_rule) return make_error(held_rule.error());
  const bool use_rule = *mem_rule;
  const char* const kMemRatioRule = deploy::kMemoryUsedRatioRule;
  const std::string mem_max_q =
      use_rule ? fmt::format("max_over_time({}{}{})", kMemRatioRule, sel, window)
               : fmt::format("max_over_time({0}{2}{3}) / (avg_over_time({0}{2}{3}) + avg_over_time({1}{2}{3}))",
                             name(Signal::fb_used), name(Signal::fb_free), sel, window);
  struct Screen {
    std::string query;
    double Device::*slot;
    double scale;
  };
  const Screen screens[] = {
      {fmt::format("avg_over_time({}{}{})", name(Signal::util), sel, window), &Device::mean, util_scale},
      {fmt::format("quantile_over_time(0.95, {}{}{})", name(Signal::util), sel, window), &Device::p95, util_scale},
      {mem_max_q, &Device::mem_max, 1},
      {fmt::format("max_over_time({}{}{})", name(Signal::temp), sel, window), &Device::temp_max, scale(Signal::temp)},
      {fmt::format("max_over_time({}{}{})", name(Signal::throttle), sel, window), &Device::reasons_max, 1},
  };
  std::vector<Screen> all(std::begin(screens), std::end(screens));
  if (*held_rule)
    all.push_back({fmt::format("max_over_time({}{}{})", deploy::kClocksHeldDownRule, sel, window), &Device::held_down_max, 1});
  for (std::size_t i = 0; i < all.size(); ++i) {
    report(0.05 * static_cast<double>(i + 1), "screening");
    Result<std::map<std::string, double>> v = per_device(c, all[i].query, to, ids);
    if (!v) return make_error(v.error());
    for (auto& [id, d] : devs) d.*all[i].slot = get(*v, id) * all[i].scale;
  }
  std::map<std::string, std::pair<double, double>> host_max;  // instance -> (cpu, iowait) maxima
  for (int which = 0; which < 2; ++which) {
    Result<nlohmann::json> r = call(c, "query", {{"query", fmt::format("max_over_time({}{})", which ? kHostIowaitSeries : kHostCpuSeries, window)},
                                                 {"time", fmt::format("{:.3f}", to)}});
    if (!r) return make_error(r.error());
    for (const nlohmann::json& s : *r) {
      std::optional<double> v;
      if (!sample_value(s, &v)) continue;
      auto& slot = host_max.try_emplace(label(metric_of(s), "instance"), NAN, NAN).first->second;
      (which ? slot.second : slot.first) = v.value_or(NAN);
    }
  }
  choose(devs, host_max, t);

  // 2. Read the chosen devices' signals, in batches of devices that need the
  // same ones, at the scrape interval the counts show (a finer step would
  // repeat each sample) or coarser where the window needs it.
  std::vector<double> counts;
  for (const auto& [id, d] : devs) {
    if (d.count > 0) counts.push_back(d.count);
  }
  const double step = std::max(max_step, std::floor((to - from) / std::max(1.0, median(counts))));
  Profiler prof(from, to + step, step);
  std::map<std::set<Signal>, std::vector<Device*>> by_need;
  std::size_t read = 0, total_reads = 0;
  for (auto& [id, d] : devs) {
    if (!d.need.empty()) {
      by_need[d.need].push_back(&d);
      ++read;
    }
  }
  for (const auto& [need, members] : by_need) total_reads += (members.size() + 63) / 64;
  std::size_t done_reads = 0;
  std::map<std::string, int> index;  // every device, in id order
  for (auto& [id, d] : devs) index[id] = prof.add_device(d.key);
  std::map<std::string, std::string> host_of_instance;
  for (const auto& [need, members] : by_need) {
    for (std::size_t b = 0; b < members.size(); b += 64) {
      report(0.3 + 0.6 * static_cast<double>(done_reads++) / static_cast<double>(std::max<std::size_t>(total_reads, 1)),
             fmt::format("reading {} of {} devices", read, devs.size()));
      std::vector<Device*> batch(members.begin() + static_cast<long>(b),
                                 members.begin() + static_cast<long>(std::min(members.size(), b + 64)));
      // Select by UUID when every device has one, else by host (and drop the other devices).
      bool by_uuid = std::all_of(batch.begin(), batch.end(), [](const Device* d) { return !d->key.uuid.empty(); });
      std::vector<std::string> keys;
      for (const Device* d : batch) keys.push_back(by_uuid ? d->key.uuid : d->key.host);
      std::sort(keys.begin(), keys.end());
      keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
      std::string bsel = braces(matchers(match, ids), std::string(by_uuid ? ids.uuid : ids.host) + "=~" + quote(alternation(keys)));
      std::map<std::string, std::map<double, Obs>> obs;
      for (const Device* d : batch) obs[d->key.id()];
      for (Signal f : need) {
        if (f == Signal::fb_used && use_rule) {
          Result<void> r = read_points(c, kMemRatioRule + bsel, from, to, step, 1, Signal::fb_used, ids, obs);
          if (!r) return make_error(r.error());
          for (auto& [id, series] : obs) {
            for (auto& [ts, o] : series) o.fb_total_bytes = 1;
          }
          continue;
        }
        Result<void> r = read_points(c, name(f) + bsel, from, to, step, scale(f), f, ids, obs);
        if (!r) return make_error(r.error());
        if (f == Signal::fb_used) {
          Result<void> r2 = read_points(c, name(Signal::fb_free) + bsel, from, to, step, scale(Signal::fb_free), Signal::fb_free, ids, obs);
          if (!r2) return make_error(r2.error());
          for (auto& [id, series] : obs) {
            for (auto& [ts, o] : series) {
              if (!std::isnan(o.fb_used_bytes) && !std::isnan(o.fb_total_bytes)) o.fb_total_bytes += o.fb_used_bytes;
              else o.fb_total_bytes = NAN;
            }
          }
        }
      }
      for (const Device* d : batch) {
        int idx = index.at(d->key.id());
        if (d->host_series) host_of_instance[d->instance] = d->key.host;
        for (const auto& [ts, o] : obs[d->key.id()]) prof.add(idx, o);
      }
    }
  }

  // Host CPU and iowait for the hosts that may be input-bound, joined by instance.
  if (!host_of_instance.empty()) {
    std::vector<std::string> instances;
    for (const auto& [inst, host] : host_of_instance) instances.push_back(inst);
    const std::string hsel = braces("instance=~" + quote(alternation(instances)));
    std::map<std::string, std::map<double, std::pair<float, float>>> host_obs;
    for (int which = 0; which < 2; ++which) {
      report(0.95, "host CPU");
      Result<nlohmann::json> res = query_range(c, (which ? kHostIowaitSeries : kHostCpuSeries) + hsel, from, to, step);
      if (!res) return make_error(res.error());
      for (const nlohmann::json& series : *res) {
        auto h = host_of_instance.find(label(metric_of(series), "instance"));
        if (h == host_of_instance.end() || !series.is_object() || !series.contains("values") || !series["values"].is_array())
          continue;
        for (const nlohmann::json& pt : series["values"]) {
          if (!pt.is_array() || pt.size() != 2 || !pt[0].is_number() || !pt[1].is_string()) continue;
          std::optional<double> v = parse_double(pt[1].get<std::string>());
          if (!v) continue;
          auto& slot = host_obs[h->second].try_emplace(pt[0].get<double>(), NAN, NAN).first->second;
          (which == 0 ? slot.first : slot.second) = static_cast<float>(*v * 100);
        }
      }
    }
    for (const auto& [host, points] : host_obs) {
      for (const auto& [ts, v] : points) prof.add_host(host, ts, v.first, v.second);
    }
  }
  report(1.0, "profiled");
  Profiles p = prof.finish();
  for (auto& [id, d] : devs) {
    DeviceProfile& dp = p.devices[static_cast<std::size_t>(index.at(id))];
    dp.screened_util_mean_pct = d.mean;
    dp.screened_util_p95_pct = d.p95;
    dp.screened_samples = static_cast<std::uint64_t>(d.count);
  }
  p.devices_read = read;
  p.notes = std::move(notes);
  return p;
}

}  // namespace rooftop::analyze
