// Store: round trip, retention, downsampling, and start-up diagnostics.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <sqlite3.h>

#include "telemetry/store.h"
#include "test_util.h"

namespace rooftop::telemetry {
namespace {

Snapshot round(double t, double util, std::uint64_t reasons = 0) {
  Snapshot s;
  s.time_s = t;
  DeviceReading r;
  r.info.backend = "fake";
  r.info.index = 0;
  r.info.uuid = "GPU-A";
  r.info.host = "node-a";
  r.info.model = "Test";
  r.sample.gpu_util_pct = util;
  r.sample.power_w = 100 + util;
  r.sample.energy_j = t;
  r.sample.throttle_reasons = reasons;
  r.sample.job = "train";
  s.devices.push_back(r);
  HostSample h;
  h.host = "node-a";
  h.cpu_busy_pct = util / 2;
  s.host = h;
  return s;
}

TEST(Store, AppendsAndQueriesTypedRows) {
  const std::string dir = test::scratch_dir("store_rt");
  auto store = Store::open(dir + "/h.db", {});
  ASSERT_TRUE(store) << store.error().what();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE((*store)->append(round(1000 + i, 10.0 * i)));
  auto devices = (*store)->devices();
  ASSERT_TRUE(devices);
  ASSERT_EQ(devices->size(), 1u);
  EXPECT_EQ((*devices)[0].uuid, "GPU-A");
  auto rows = (*store)->query((*devices)[0].id, 1001, 1004);
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 3u);
  EXPECT_DOUBLE_EQ((*rows)[0].time_s, 1001);
  EXPECT_DOUBLE_EQ(*(*rows)[0].sample.gpu_util_pct, 10);
  EXPECT_EQ((*rows)[0].sample.job, "train");
  EXPECT_FALSE((*rows)[0].sample.temp_c);  // unknown stays unknown
  auto host = (*store)->query_host("node-a", 0, 2000);
  ASSERT_TRUE(host);
  EXPECT_EQ(host->size(), 5u);
  // A reader sees the rows while the writer is open (WAL).
  auto reader = Store::open_read_only(dir + "/h.db");
  ASSERT_TRUE(reader) << reader.error().what();
  EXPECT_EQ((*reader)->query((*devices)[0].id, 0, 1e12)->size(), 5u);
}

TEST(Store, RetentionDeletesAndDownsamplingAverages) {
  const std::string dir = test::scratch_dir("store_ds");
  StoreOptions o;
  o.retention_s = 1000;
  o.downsample_after_s = 300;
  o.downsample_step_s = 60;
  auto store = Store::open(dir + "/h.db", o);
  ASSERT_TRUE(store);
  const double t0 = 60000;  // bucket-aligned
  for (int i = 0; i < 120; ++i) ASSERT_TRUE((*store)->append(round(t0 + i, i < 60 ? 10 : 30, i == 5 ? 0x4 : 0x1)));
  ASSERT_TRUE((*store)->append(round(t0 + 900, 50)));
  ASSERT_TRUE((*store)->maintain(t0 + 1000));  // everything before t0+700 is downsampled; nothing expired
  const auto id = (*store)->devices()->at(0).id;
  auto rows = (*store)->query(id, 0, 1e12);
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 3u);
  EXPECT_DOUBLE_EQ((*rows)[0].step_s, 60);
  EXPECT_DOUBLE_EQ(*(*rows)[0].sample.gpu_util_pct, 10);
  EXPECT_DOUBLE_EQ(*(*rows)[1].sample.gpu_util_pct, 30);
  EXPECT_EQ(*(*rows)[0].sample.throttle_reasons, 0x5u);  // OR of the bucket's masks
  EXPECT_DOUBLE_EQ(*(*rows)[0].sample.energy_j, t0 + 59);  // counter: last value
  EXPECT_DOUBLE_EQ((*rows)[2].step_s, 1);                 // recent row kept raw
  EXPECT_EQ((*store)->query_host("node-a", 0, 1e12)->size(), 3u);
  ASSERT_TRUE((*store)->maintain(t0 + 1050));  // first bucket now past retention
  EXPECT_EQ((*store)->query(id, 0, 1e12)->size(), 2u);
}

// The batched read path (analyze) returns the same rows as query(): NULL as
// NaN, batches split at the right places, job filter and host rows.
TEST(Store, BatchedScanMatchesQuery) {
  const std::string dir = test::scratch_dir("store_rows");
  auto store = Store::open(dir + "/h.db", {});
  ASSERT_TRUE(store);
  constexpr int kRows = 9000;  // more than two batches
  for (int i = 0; i < kRows; ++i) {
    Snapshot s = round(1000 + i, i % 101, static_cast<std::uint64_t>(i % 3));
    s.devices[0].sample.job = i < 5000 ? "train" : "eval";
    if (i % 7 == 0) s.devices[0].sample.gpu_util_pct.reset();
    s.devices[0].sample.temp_c = 40.5 + i % 9;
    ASSERT_TRUE((*store)->append(s));
  }
  auto reader = Store::open_read_only(dir + "/h.db");
  ASSERT_TRUE(reader);
  const auto id = (*reader)->devices()->at(0).id;
  auto want = (*reader)->query(id, 1100, 9500);
  ASSERT_TRUE(want);
  std::vector<SampleRow> got;
  std::vector<std::size_t> batches;
  ASSERT_TRUE((*reader)->scan_rows(id, 1100, 9500, [&](const SampleRow* r, std::size_t n) {
    got.insert(got.end(), r, r + n);
    batches.push_back(n);
  }));
  ASSERT_EQ(got.size(), want->size());
  EXPECT_EQ(got.size(), 8400u);
  EXPECT_EQ(batches, (std::vector<std::size_t>{4096, 4096, 208}));
  for (std::size_t i = 0; i < got.size(); ++i) {
    const DeviceSample& w = (*want)[i].sample;
    ASSERT_DOUBLE_EQ(got[i].time_s, (*want)[i].time_s);
    if (w.gpu_util_pct) ASSERT_DOUBLE_EQ(got[i].gpu_util_pct, *w.gpu_util_pct);
    else ASSERT_TRUE(std::isnan(got[i].gpu_util_pct)) << i;
    ASSERT_DOUBLE_EQ(got[i].power_w, *w.power_w);
    ASSERT_DOUBLE_EQ(got[i].temp_c, *w.temp_c);
    ASSERT_DOUBLE_EQ(got[i].throttle_reasons, static_cast<double>(*w.throttle_reasons));
    ASSERT_TRUE(std::isnan(got[i].fb_used_bytes));  // never recorded
  }
  // The job filter and the head of a window.
  auto jobs = (*reader)->jobs();
  ASSERT_TRUE(jobs);
  std::int64_t eval = 0;
  for (const auto& [k, v] : *jobs) eval = v == "eval" ? k : eval;
  ASSERT_NE(eval, 0);
  std::size_t n_eval = 0;
  ASSERT_TRUE((*reader)->scan_rows(id, 0, 1e12, [&](const SampleRow* r, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) EXPECT_GE(r[i].time_s, 6000);
    n_eval += n;
  }, eval));
  EXPECT_EQ(n_eval, 4000u);
  auto head = (*reader)->head(id, 0, 1e12, eval, 3);
  ASSERT_TRUE(head);
  ASSERT_EQ(head->size(), 3u);
  EXPECT_EQ((*head)[0].job_id, eval);
  EXPECT_DOUBLE_EQ((*head)[0].step_s, 1);
  EXPECT_TRUE((*reader)->head(id, 0, 1e12, 12345, 3)->empty());
  std::vector<HostRow> host;
  ASSERT_TRUE((*reader)->scan_host_rows("node-a", 1000, 1010, [&](const HostRow* r, std::size_t n) {
    host.insert(host.end(), r, r + n);
  }));
  ASSERT_EQ(host.size(), 10u);
  EXPECT_DOUBLE_EQ(host[4].cpu_busy_pct, 2.0);  // util 4 / 2
  EXPECT_TRUE(std::isnan(host[4].cpu_iowait_pct));
}

TEST(Store, StartUpProblemsAreBadInputNamingTheFile) {
  const std::string dir = test::scratch_dir("store_bad");
  test::write_file(dir + "/garbage.db", std::string(8192, 'x'));
  auto corrupt = Store::open(dir + "/garbage.db", {});
  ASSERT_FALSE(corrupt);
  EXPECT_EQ(corrupt.error().code, Errc::invalid_input);
  EXPECT_EQ(corrupt.error().context, dir + "/garbage.db");
  EXPECT_NE(corrupt.error().message.find("not a rooftop database or is corrupt"), std::string::npos);

  auto missing_dir = Store::open(dir + "/no/such/dir/h.db", {});
  ASSERT_FALSE(missing_dir);
  EXPECT_EQ(missing_dir.error().code, Errc::invalid_input);

  // Another connection holds the write lock.
  const std::string locked = dir + "/locked.db";
  ASSERT_TRUE(Store::open(locked, {}));
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(locked.c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
  auto busy = Store::open(locked, {});
  ASSERT_FALSE(busy);
  EXPECT_NE(busy.error().message.find("locked"), std::string::npos);
  sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(other);

  // A newer schema is refused rather than misread.
  ASSERT_EQ(sqlite3_open(locked.c_str(), &other), SQLITE_OK);
  sqlite3_exec(other, "UPDATE meta SET value='99' WHERE key='schema_version'", nullptr, nullptr, nullptr);
  sqlite3_close(other);
  auto newer = Store::open(locked, {});
  ASSERT_FALSE(newer);
  EXPECT_NE(newer.error().message.find("schema version 99"), std::string::npos);
  EXPECT_FALSE(Store::open_read_only(dir + "/garbage.db"));
}

}  // namespace
}  // namespace rooftop::telemetry

namespace rooftop::telemetry {
namespace {

// A store written before samples.pod_id existed: read-only it reads with no
// pod; opened for writing it gains the column and keeps the pod of new rows.
TEST(Store, KeepsPodsAndUpgradesStoresWithoutThem) {
  const std::string dir = test::scratch_dir("store_pods");
  const std::string path = dir + "/old.db";
  {
    auto store = Store::open(path, {});
    ASSERT_TRUE(store) << store.error().what();
    ASSERT_TRUE((*store)->append(round(1000, 50)));
  }
  {  // make it look like an older file: samples without pod_id
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "ALTER TABLE samples DROP COLUMN pod_id", nullptr, nullptr, nullptr), SQLITE_OK)
        << sqlite3_errmsg(db);
    sqlite3_close(db);
  }
  {
    auto ro = Store::open_read_only(path);
    ASSERT_TRUE(ro) << ro.error().what();
    auto rows = (*ro)->query((*ro)->devices()->front().id, 0, 5000);
    ASSERT_TRUE(rows) << rows.error().what();
    ASSERT_EQ(rows->size(), 1u);
    EXPECT_TRUE(rows->front().sample.pod.pod.empty());
  }
  auto store = Store::open(path, {});
  ASSERT_TRUE(store) << store.error().what();
  Snapshot s = round(1001, 60);
  s.devices[0].sample.pod = PodRef{"trainer-0", "ml", "main"};
  ASSERT_TRUE((*store)->append(s));
  ASSERT_TRUE((*store)->maintain(1001 + 3 * 86400.0 - 100));  // downsampling keeps the pod column in step
  auto rows = (*store)->query((*store)->devices()->front().id, 0, 1e12);
  ASSERT_TRUE(rows) << rows.error().what();
  ASSERT_FALSE(rows->empty());
  EXPECT_EQ(rows->back().sample.pod, (PodRef{"trainer-0", "ml", "main"}));
}

}  // namespace
}  // namespace rooftop::telemetry
