// Prometheus HTTP API answers as analyze reads them: vectors, matrices,
// errors, and JSON of the wrong shape (an Error or skipped, never a throw).
#include <gtest/gtest.h>

#include <cmath>

#include "analyze/prometheus_json.h"

namespace rooftop::analyze {
namespace {

const std::string kWhere = "--prometheus http://p";

nlohmann::json result_of(const std::string& body) {
  auto r = api_result(body, 200, "query", "up", kWhere);
  EXPECT_TRUE(r) << r.error().what();
  return r ? *r : nlohmann::json::array();
}

TEST(PrometheusJson, ReadsAVectorAndAMatrix) {
  const nlohmann::json v = result_of(
      R"({"status":"success","data":{"resultType":"vector","result":[)"
      R"({"metric":{"Hostname":"n1","gpu":"0"},"value":[1796283020.955,"42.5"]},)"
      R"({"metric":{"Hostname":"n1","gpu":"1"},"value":[1796283020.955,"+Inf"]}]}})");
  auto values = instant_values(v, kDcgmLabels, kWhere);
  ASSERT_TRUE(values);
  ASSERT_EQ(values->size(), 1u);  // +Inf is left out
  EXPECT_EQ(values->at("n1/gpu0"), 42.5);
  const nlohmann::json m = result_of(
      R"({"status":"success","data":{"resultType":"matrix","result":[)"
      R"({"metric":{"instance":"n1:9400","gpu":"0"},"values":[[10,"50"],[11,"NaN"],[12,"100"]]}]}})");
  std::map<std::string, std::map<double, Obs>> obs;
  obs["n1:9400/gpu0"];
  ASSERT_TRUE(matrix_points(m, 1, Signal::util, kRooftopLabels, obs, kWhere));
  ASSERT_EQ(obs["n1:9400/gpu0"].size(), 2u);
  EXPECT_EQ(obs["n1:9400/gpu0"][12].util_pct, 100.0f);
}

TEST(PrometheusJson, ErrorsSayWhy) {
  auto refused = api_result(R"({"status":"error","errorType":"bad_data","error":"parse error"})", 400, "query", "up{",
                            kWhere);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message, "Prometheus rejected query up{: parse error");
  EXPECT_NE(api_result("<html>", 502, "query", "up", kWhere).error().message.find("not JSON"), std::string::npos);
  EXPECT_NE(api_result(R"({"status":"success","data":{"result":{}}})", 200, "query", "up", kWhere).error().message.find(
                "no data.result array"),
            std::string::npos);
}

// Each of these threw nlohmann::json::type_error out of analyze (a crash)
// before: a status or error that is not a string, a result element that is
// not an object.
TEST(PrometheusJson, WrongShapesAreErrorsNotExceptions) {
  EXPECT_FALSE(api_result(R"({"status":1})", 200, "query", "up", kWhere));
  EXPECT_FALSE(api_result(R"({"status":"error","error":["x"]})", 200, "query", "up", kWhere));
  const nlohmann::json odd = result_of(R"({"status":"success","data":{"result":[1,"x",null,[2],{"metric":3}]}})");
  EXPECT_FALSE(instant_values(odd, kDcgmLabels, kWhere));
  std::map<std::string, std::map<double, Obs>> obs;
  for (const auto& s : odd) obs[series_id(metric_of(s), kDcgmLabels).id];
  EXPECT_FALSE(matrix_points(odd, 1, Signal::util, kDcgmLabels, obs, kWhere));
  std::optional<double> v;
  EXPECT_FALSE(sample_value(nlohmann::json(1), &v));
  EXPECT_EQ(label(nlohmann::json("x"), "gpu"), "");
}

}  // namespace
}  // namespace rooftop::analyze
