// Reading Prometheus HTTP API answers (see prometheus_json.h).
#include "analyze/prometheus_json.h"

#include <fmt/format.h>

#include "core/text.h"

namespace rooftop::analyze {

Result<nlohmann::json> api_result(std::string_view body, int http_status, std::string_view api,
                                  std::string_view query, const std::string& where) {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return make_error(Errc::invalid_input, fmt::format("bad response to {} (HTTP {}): not JSON", api, http_status), where);
  const auto status = j.find("status");
  if (status == j.end() || !status->is_string() || *status != "success") {
    const auto error = j.find("error");
    const std::string why = error != j.end() && error->is_string() ? error->get<std::string>() : "unknown error";
    return make_error(Errc::invalid_input, fmt::format("Prometheus rejected query {}: {}", query, why), where);
  }
  const auto data = j.find("data");
  if (data == j.end() || !data->is_object() || !data->contains("result") || !(*data)["result"].is_array())
    return make_error(Errc::invalid_input, fmt::format("bad response to {}: no data.result array", api), where);
  return std::move((*data)["result"]);
}

nlohmann::json metric_of(const nlohmann::json& series) {
  if (!series.is_object()) return nlohmann::json::object();
  const auto m = series.find("metric");
  return m == series.end() ? nlohmann::json::object() : *m;
}

std::string label(const nlohmann::json& metric, const char* name) {
  if (!metric.is_object()) return "";
  const auto it = metric.find(name);
  return it == metric.end() || !it->is_string() ? "" : it->get<std::string>();
}

SeriesId series_id(const nlohmann::json& metric, const IdentityLabels& ids) {
  SeriesId s;
  s.instance = label(metric, "instance");
  s.host = label(metric, ids.host);
  if (s.host.empty()) s.host = s.instance;
  s.id = s.host + "/gpu" + label(metric, "gpu");
  return s;
}

bool sample_value(const nlohmann::json& series, std::optional<double>* value) {
  if (!series.is_object()) return false;
  const auto v = series.find("value");
  if (v == series.end() || !v->is_array() || v->size() != 2 || !(*v)[1].is_string()) return false;
  *value = parse_double((*v)[1].get<std::string>());
  return true;
}

Result<std::map<std::string, double>> instant_values(const nlohmann::json& result, const IdentityLabels& ids,
                                                     const std::string& where) {
  std::map<std::string, double> out;
  for (const nlohmann::json& s : result) {
    std::optional<double> v;
    if (!sample_value(s, &v))
      return make_error(Errc::invalid_input, "bad response to query: malformed sample", where);
    if (v) out[series_id(metric_of(s), ids).id] = *v;
  }
  return out;
}

Result<void> matrix_points(const nlohmann::json& result, double scale, Signal signal, const IdentityLabels& ids,
                           std::map<std::string, std::map<double, Obs>>& obs, const std::string& where) {
  for (const nlohmann::json& series : result) {
    const std::string id = series_id(metric_of(series), ids).id;
    auto dev = obs.find(id);
    if (dev == obs.end()) continue;  // a device of the same host not asked for
    if (!series.is_object() || !series.contains("values") || !series["values"].is_array())
      return make_error(Errc::invalid_input, "bad response to query_range: a series without values", where);
    for (const nlohmann::json& pt : series["values"]) {
      if (!pt.is_array() || pt.size() != 2 || !pt[0].is_number() || !pt[1].is_string())
        return make_error(Errc::invalid_input, "bad response to query_range: malformed sample", where);
      std::optional<double> v = parse_double(pt[1].get<std::string>());
      if (!v) continue;  // NaN or Inf
      const double t = pt[0].get<double>();
      Obs& o = dev->second[t];
      o.t_s = t;
      set_signal(o, signal, *v * scale);  // fb_free: the total (used + free, or 1 for the ratio rule) the caller adds
    }
  }
  return {};
}

}  // namespace rooftop::analyze
