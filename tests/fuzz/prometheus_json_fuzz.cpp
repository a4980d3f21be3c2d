// What analyze reads from a Prometheus server: the HTTP response
// (analyze/http.h parse_http_response) and the API's JSON
// (analyze/prometheus_json.h: query vectors, query_range matrices, errors,
// huge or malformed numbers, NaN/Inf strings). The input is a response body;
// it is also read as a whole HTTP response. Never a crash or an exception.
#include <cmath>

#include "analyze/http.h"
#include "analyze/prometheus_json.h"
#include "fuzz_input.h"

using namespace rooftop::analyze;
using rooftop::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in = rooftop::fuzz::text(data, size);
  auto http = parse_http_response(std::string(in));
  if (http) check(http->status >= 100 && http->status <= 999, "a status has three digits");
  auto result = api_result(in, 200, "query", "up", "--prometheus fuzz");
  if (!result) return 0;
  check(result->is_array(), "data.result is an array");
  for (const IdentityLabels& ids : {kDcgmLabels, kRooftopLabels}) {
    auto values = instant_values(*result, ids, "--prometheus fuzz");
    if (values) {
      for (const auto& [id, v] : *values) check(std::isfinite(v), "instant values are finite");
    }
    std::map<std::string, std::map<double, Obs>> obs;
    for (const auto& s : *result) obs[series_id(metric_of(s), ids).id];
    auto points = matrix_points(*result, 0.01, Signal::util, ids, obs, "--prometheus fuzz");
    if (points) {
      for (const auto& [id, series] : obs) {
        for (const auto& [t, o] : series) check(o.t_s == t, "a point keeps its time");
      }
    }
  }
  return 0;
}
