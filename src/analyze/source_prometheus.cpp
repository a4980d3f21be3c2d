// Reading a fleet's history from a Prometheus server's HTTP API
// (/api/v1/query_range), for dcgm-exporter names or rooftop_* names.
#include <fmt/format.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>

#include "analyze/http.h"
#include "analyze/sources.h"
#include "core/text.h"

namespace rooftop::analyze {

namespace {

struct MetricMap {
  const char* field;
  const char* dcgm;
  double dcgm_scale;
  const char* rooftop;
  double rooftop_scale;
};
// Field -> series name and the factor to our units (%, bytes, MHz).
const MetricMap kMetrics[] = {
    {"util", "DCGM_FI_DEV_GPU_UTIL", 1, "rooftop_gpu_utilization_ratio", 100},
    {"copy", "DCGM_FI_DEV_MEM_COPY_UTIL", 1, "rooftop_gpu_memory_copy_utilization_ratio", 100},
    {"fb_used", "DCGM_FI_DEV_FB_USED", 1048576.0, "rooftop_gpu_memory_used_bytes", 1},
    {"fb_free", "DCGM_FI_DEV_FB_FREE", 1048576.0, "rooftop_gpu_memory_free_bytes", 1},
    {"temp", "DCGM_FI_DEV_GPU_TEMP", 1, "rooftop_gpu_temperature_celsius", 1},
    {"power", "DCGM_FI_DEV_POWER_USAGE", 1, "rooftop_gpu_power_watts", 1},
    {"clock", "DCGM_FI_DEV_SM_CLOCK", 1, "rooftop_gpu_sm_clock_hertz", 1e-6},
    {"throttle", "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", 1, "rooftop_gpu_clock_event_reasons", 1},
};

struct Client {
  std::string host;
  int port = 80;
  std::string url;
};

Result<Client> connect(const std::string& url) {
  static const std::regex kUrl(R"(^http://([^/:]+)(:([0-9]{1,5}))?/?$)");
  std::smatch m;
  if (!std::regex_match(url, m, kUrl))
    return make_error(Errc::invalid_input,
                      starts_with(url, "https://") ? "https is not supported; reach Prometheus over http (e.g. through a local proxy)"
                                                   : "expected http://HOST:PORT",
                      "--prometheus " + url);
  int port = m[3].matched ? std::stoi(m[3].str()) : 80;
  if (port < 1 || port > 65535) return make_error(Errc::invalid_input, "port out of range", "--prometheus " + url);
  return Client{m[1].str(), port, url};
}

// Runs one query_range; returns data.result (a JSON array).
Result<nlohmann::json> query_range(Client& c, const std::string& q, double from, double to, double step) {
  Result<HttpResponse> res = http_post_form(
      c.host, c.port, "/api/v1/query_range",
      {{"query", q}, {"start", fmt::format("{:.3f}", from)}, {"end", fmt::format("{:.3f}", to)}, {"step", fmt::format("{}", step)}});
  if (!res)
    return make_error(Errc::invalid_input, "cannot reach Prometheus (" + res.error().message + ")", "--prometheus " + c.url);
  nlohmann::json j = nlohmann::json::parse(res->body, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return make_error(Errc::invalid_input,
                      fmt::format("bad response to query_range (HTTP {}): not JSON", res->status), "--prometheus " + c.url);
  if (j.value("status", "") != "success") {
    std::string why = j.contains("error") && j["error"].is_string() ? j["error"].get<std::string>() : "unknown error";
    return make_error(Errc::invalid_input, fmt::format("Prometheus rejected query {}: {}", q, why), "--prometheus " + c.url);
  }
  if (!j.contains("data") || !j["data"].is_object() || !j["data"].contains("result") || !j["data"]["result"].is_array())
    return make_error(Errc::invalid_input, "bad response to query_range: no data.result array", "--prometheus " + c.url);
  return j["data"]["result"];
}

std::string label(const nlohmann::json& metric, const char* name) {
  if (!metric.is_object() || !metric.contains(name) || !metric[name].is_string()) return "";
  return metric[name].get<std::string>();
}

// PromQL label matchers for --match, with our names translated to the exported ones.
std::string selector(const Matcher& m, bool dcgm) {
  std::string out;
  for (const auto& [k, v] : m.labels) {
    std::string name = k;
    if (dcgm && k == "host") name = "Hostname";
    else if (dcgm && k == "uuid") name = "UUID";
    else if (dcgm && k == "model") name = "modelName";
    else if (!dcgm && k == "host") name = "instance";
    std::string escaped;
    for (char ch : v) {
      if (ch == '"' || ch == '\\') escaped += '\\';
      escaped += ch;
    }
    out += (out.empty() ? "" : ",") + name + "=\"" + escaped + "\"";
  }
  return "{" + out + "}";
}

}  // namespace

Result<Profiles> profile_prometheus(const std::string& url, const TimeRange& range, const Matcher& match,
                                    const ProgressFn& progress) {
  Result<Client> c = connect(url);
  if (!c) return make_error(c.error());
  double to = range.to_s.value_or(static_cast<double>(std::time(nullptr)));
  double from = range.from_s.value_or(to - 3600);
  if (!(to > from)) return make_error(Errc::invalid_input, "the time window is empty", "--from/--to");
  // Prometheus answers at most 11,000 points per series.
  double step = std::max(1.0, std::ceil((to - from) / 10000));

  // Which name set does this server hold?
  bool dcgm = true;
  Result<nlohmann::json> probe = query_range(*c, std::string("DCGM_FI_DEV_GPU_UTIL") + selector(match, true), from, to, step);
  if (!probe) return make_error(probe.error());
  if (probe->empty()) {
    Result<nlohmann::json> rt = query_range(*c, std::string("rooftop_gpu_utilization_ratio") + selector(match, false), from, to, step);
    if (!rt) return make_error(rt.error());
    if (rt->empty())
      return make_error(Errc::invalid_input,
                        "no accelerator series in " + format_time(from) + " .. " + format_time(to) +
                            " (neither DCGM_FI_DEV_GPU_UTIL nor rooftop_gpu_utilization_ratio" +
                            (match.labels.empty() ? "" : " matching " + selector(match, true)) +
                            "): empty window or unknown labels",
                        "--prometheus " + url);
    dcgm = false;
  }
  std::string sel = selector(match, dcgm);

  // device key -> time -> observation
  struct Dev {
    DeviceKey key;
    std::string instance;
    std::map<double, Obs> obs;
  };
  std::map<std::string, Dev> devs;
  std::size_t done = 0, total = std::size(kMetrics) + 2;
  for (const MetricMap& m : kMetrics) {
    if (progress) progress(static_cast<double>(done++) / static_cast<double>(total), dcgm ? m.dcgm : m.rooftop);
    Result<nlohmann::json> res = query_range(*c, std::string(dcgm ? m.dcgm : m.rooftop) + sel, from, to, step);
    if (!res) return make_error(res.error());
    double scale = dcgm ? m.dcgm_scale : m.rooftop_scale;
    for (const nlohmann::json& series : *res) {
      const nlohmann::json& metric = series.contains("metric") ? series["metric"] : nlohmann::json::object();
      std::string instance = label(metric, "instance");
      std::string host = dcgm ? label(metric, "Hostname") : instance;
      if (host.empty()) host = instance;
      std::string gpu = label(metric, "gpu");
      std::string id = host + "/gpu" + gpu;
      Dev& d = devs[id];
      d.key.host = host;
      d.key.gpu = parse_int(gpu).value_or(0);
      d.key.uuid = label(metric, dcgm ? "UUID" : "uuid");
      d.key.model = dcgm ? label(metric, "modelName") : d.key.model;
      d.instance = instance;
      if (!series.contains("values") || !series["values"].is_array())
        return make_error(Errc::invalid_input, "bad response to query_range: a series without values", "--prometheus " + url);
      for (const nlohmann::json& pt : series["values"]) {
        if (!pt.is_array() || pt.size() != 2 || !pt[0].is_number() || !pt[1].is_string())
          return make_error(Errc::invalid_input, "bad response to query_range: malformed sample", "--prometheus " + url);
        double t = pt[0].get<double>();
        std::optional<double> v = parse_double(pt[1].get<std::string>());
        if (!v) continue;  // NaN or Inf
        Obs& o = d.obs[t];
        o.t_s = t;
        std::string field = m.field;
        double x = *v * scale;
        if (field == "util") o.util_pct = static_cast<float>(x);
        else if (field == "copy") o.mem_copy_pct = static_cast<float>(x);
        else if (field == "fb_used") o.fb_used_bytes = static_cast<float>(x);
        else if (field == "fb_free") o.fb_total_bytes = static_cast<float>(x);  // free for now; total below
        else if (field == "temp") o.temp_c = static_cast<float>(x);
        else if (field == "power") o.power_w = static_cast<float>(x);
        else if (field == "clock") o.sm_clock_mhz = static_cast<float>(x);
        else if (field == "throttle") o.throttle_bits = x;
      }
    }
  }
  Profiler prof(from, to + step, step);
  std::map<std::string, std::string> host_of_instance;
  for (auto& [id, d] : devs) {
    int idx = prof.add_device(d.key);
    host_of_instance[d.instance] = d.key.host;
    for (auto& [t, o] : d.obs) {
      if (!std::isnan(o.fb_used_bytes) && !std::isnan(o.fb_total_bytes)) o.fb_total_bytes += o.fb_used_bytes;
      else o.fb_total_bytes = NAN;
      prof.add(idx, o);
    }
  }
  // Host CPU and iowait (rooftop names in both modes), joined by instance.
  std::map<std::string, std::map<double, std::pair<float, float>>> host_obs;
  for (int which = 0; which < 2; ++which) {
    const char* name = which == 0 ? "rooftop_host_cpu_utilization_ratio" : "rooftop_host_cpu_iowait_ratio";
    if (progress) progress(static_cast<double>(done++) / static_cast<double>(total), name);
    Result<nlohmann::json> res = query_range(*c, name, from, to, step);
    if (!res) return make_error(res.error());
    for (const nlohmann::json& series : *res) {
      auto h = host_of_instance.find(label(series.value("metric", nlohmann::json::object()), "instance"));
      if (h == host_of_instance.end() || !series.contains("values") || !series["values"].is_array()) continue;
      for (const nlohmann::json& pt : series["values"]) {
        if (!pt.is_array() || pt.size() != 2 || !pt[0].is_number() || !pt[1].is_string()) continue;
        std::optional<double> v = parse_double(pt[1].get<std::string>());
        if (!v) continue;
        auto& slot = host_obs[h->second].try_emplace(pt[0].get<double>(), NAN, NAN).first->second;
        (which == 0 ? slot.first : slot.second) = static_cast<float>(*v * 100);
      }
    }
  }
  for (const auto& [host, series] : host_obs) {
    for (const auto& [t, v] : series) prof.add_host(host, t, v.first, v.second);
  }
  if (progress) progress(1.0, "profiled");
  return prof.finish();
}

}  // namespace rooftop::analyze
