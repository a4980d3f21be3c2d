// The metric table (telemetry/metrics.h): names unique and well formed in
// both name sets, every stored row survives the store and every traced row
// the trace CSV, exposition writes each row under its name.
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "telemetry/metrics.h"
#include "telemetry/store.h"
#include "test_util.h"

namespace rooftop::telemetry {
namespace {

// A reading with every field of the table set to a distinct value.
DeviceReading full_reading() {
  DeviceReading r;
  r.info.backend = "fake";
  r.info.uuid = "GPU-T";
  r.info.host = "node-t";
  r.info.model = "Test";
  r.info.power_limit_w = 700;
  r.info.sm_clock_max_mhz = 1980;
  double v = 1;
  for (const DeviceMetric& m : kDeviceMetrics) {
    const DeviceField& f = m.field;
    if (f.real) r.sample.*f.real = v;
    if (f.mask) r.sample.*f.mask = static_cast<std::uint64_t>(v);
    if (f.code) r.sample.*f.code = static_cast<std::int64_t>(v);
    v += 1;
  }
  r.sample.job = "train";
  r.sample.pod = PodRef{"trainer-0", "ml", "main"};
  return r;
}

TEST(Metrics, NamesAreUniqueAndWellFormed) {
  const std::regex prom("[a-zA-Z_:][a-zA-Z0-9_:]*");
  std::set<std::string_view> seen;
  for (const DeviceMetric& m : kDeviceMetrics) {
    EXPECT_TRUE(seen.insert(m.column).second) << m.column;
    EXPECT_TRUE(seen.insert(m.name).second) << m.name;
    EXPECT_TRUE(seen.insert(m.dcgm_name).second) << m.dcgm_name;
    EXPECT_TRUE(std::regex_match(std::string(m.name), prom)) << m.name;
    EXPECT_TRUE(std::string_view(m.name).starts_with("rooftop_gpu_")) << m.name;
    EXPECT_TRUE(std::string_view(m.dcgm_name).starts_with("DCGM_FI_")) << m.dcgm_name;
    EXPECT_EQ(m.type == MetricType::counter, std::string_view(m.name).ends_with("_total")) << m.name;
    EXPECT_FALSE(m.help.empty());
    EXPECT_FALSE(m.dcgm_help.empty());
    EXPECT_GT(m.scale, 0);
    EXPECT_GT(m.dcgm_scale, 0);
    // Only sample fields are stored or traced; static facts are read at open.
    if (m.stored || m.trace_max > 0) {
      EXPECT_TRUE(m.field.in_sample()) << m.column;
    }
  }
  for (const HostMetric& m : kHostMetrics) {
    EXPECT_TRUE(seen.insert(m.name).second) << m.name;
    EXPECT_TRUE(std::string_view(m.name).starts_with("rooftop_host_")) << m.name;
  }
}

TEST(Metrics, ExpositionWritesEveryRowUnderItsName) {
  Snapshot snap;
  snap.devices.push_back(full_reading());
  HostSample h;
  h.host = "node-t";
  for (const HostMetric& m : kHostMetrics) h.*m.field = 1;
  snap.host = h;
  for (Names names : {Names::dcgm, Names::rooftop}) {
    const std::string text = render_metrics(snap, names);
    for (const DeviceMetric& m : kDeviceMetrics) {
      const std::string name(metric_name(m, names));
      EXPECT_NE(text.find("\n# TYPE " + name + (m.type == MetricType::counter ? " counter\n" : " gauge\n")),
                std::string::npos)
          << name;
      EXPECT_NE(text.find("\n" + name + "{"), std::string::npos) << name;
    }
    for (const HostMetric& m : kHostMetrics) EXPECT_NE(text.find("\n" + std::string(m.name) + " "), std::string::npos);
  }
}

TEST(Metrics, EveryStoredRowSurvivesTheStore) {
  const std::string dir = test::scratch_dir("metrics_store");
  auto store = Store::open(dir + "/h.db", {});
  ASSERT_TRUE(store) << store.error().what();
  Snapshot snap;
  snap.time_s = 1000;
  snap.devices.push_back(full_reading());
  HostSample h;
  h.host = "node-t";
  double v = 1;
  for (const HostMetric& m : kHostMetrics) h.*m.field = v++;
  snap.host = h;
  ASSERT_TRUE((*store)->append(snap));
  auto devices = (*store)->devices();
  ASSERT_TRUE(devices && devices->size() == 1);
  auto rows = (*store)->query(devices->front().id, 0, 2000);
  ASSERT_TRUE(rows && rows->size() == 1);
  const DeviceReading back{snap.devices[0].info, rows->front().sample};
  for (const DeviceMetric& m : kDeviceMetrics) {
    if (m.stored) {
      EXPECT_EQ(metric_value(m, back), metric_value(m, snap.devices[0])) << m.column;
    }
  }
  EXPECT_EQ(rows->front().sample.pod, snap.devices[0].sample.pod);
  auto hosts = (*store)->query_host("node-t", 0, 2000);
  ASSERT_TRUE(hosts && hosts->size() == 1);
  for (const HostMetric& m : kHostMetrics) EXPECT_EQ(hosts->front().host.*m.field, h.*m.field) << m.column;
}

TEST(Metrics, EveryTracedRowSurvivesTheTrace) {
  Trace t;
  TraceRow row;
  row.t_s = 1;
  row.host = "node-t";
  row.sample = full_reading().sample;
  t.rows.push_back(row);
  auto back = parse_trace(format_trace(t), "t.csv");
  ASSERT_TRUE(back) << back.error().what();
  const DeviceReading a{{}, row.sample}, b{{}, back->rows.at(0).sample};
  int traced = 0;
  for (const DeviceMetric& m : kDeviceMetrics) {
    if (m.trace_max <= 0) continue;
    ++traced;
    EXPECT_EQ(metric_value(m, b), metric_value(m, a)) << m.column;
  }
  EXPECT_GT(traced, 10);
}

}  // namespace
}  // namespace rooftop::telemetry
