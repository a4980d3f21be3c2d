// The JSON answers of Prometheus' HTTP API (/api/v1/query vectors and
// /api/v1/query_range matrices) as analyze reads them: pure, so the client
// (source_prometheus.cpp), its tests and the fuzz target
// tests/fuzz/prometheus_json_fuzz.cpp share one reading. `where` names the
// server in errors ("--prometheus URL"). Any JSON value may stand where an
// object or array is expected: it is an error or skipped, never an exception.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "analyze/analyze.h"
#include "analyze/series.h"
#include "core/result.h"

namespace rooftop::analyze {

// data.result (an array) of a `"status": "success"` answer to `api`; an
// error naming the problem otherwise (not JSON, the server's error text, no
// result array). `query` is quoted in the message when the server refused it.
Result<nlohmann::json> api_result(std::string_view body, int http_status, std::string_view api,
                                  std::string_view query, const std::string& where);

// The "metric" object of a result element; an empty object when it has none.
nlohmann::json metric_of(const nlohmann::json& series);
// A label's value in a metric object; "" when absent or not a string.
std::string label(const nlohmann::json& metric, const char* name);

// The device a series belongs to: "host/gpuN".
struct SeriesId {
  std::string id, host, instance;
};
SeriesId series_id(const nlohmann::json& metric, const IdentityLabels& ids);

// An instant-vector element's value: false when it has no ["time", "value"]
// pair; `value` empty when the value is NaN, Inf or not a number.
bool sample_value(const nlohmann::json& series, std::optional<double>* value);

// One value per device from an instant query's vector (NaN and Inf left out).
Result<std::map<std::string, double>> instant_values(const nlohmann::json& result, const IdentityLabels& ids,
                                                     const std::string& where);

// A query_range matrix's points, for the devices already in `obs` (others are
// skipped), times `scale`, stored as `signal` (fb_free: into fb_total_bytes).
Result<void> matrix_points(const nlohmann::json& result, double scale, Signal signal, const IdentityLabels& ids,
                           std::map<std::string, std::map<double, Obs>>& obs, const std::string& where);

}  // namespace rooftop::analyze
