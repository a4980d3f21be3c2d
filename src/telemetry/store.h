// Store: the SQLite history of `rooftop monitor`, and the read API that
// `rooftop analyze --db` uses (schema and its rationale: docs/monitor.md).
//
// One row per device per timestamp with typed columns, clustered on
// (device_id, ts_ms) in a WITHOUT ROWID table, so reading one device over a
// time range is a single range scan (30 days x 8 devices x 1 s is ~20M rows).
// WAL mode, synchronous=NORMAL, and one transaction per sampling round: a
// SIGKILL loses at most the round being written and never corrupts the file.
// maintain() deletes rows past retention and averages raw rows older than
// downsample_after_s into downsample_step_s buckets.
//
// Thread-safety: one Store per thread; it wraps one sqlite3 connection.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "telemetry/telemetry.h"

struct sqlite3;

namespace rooftop::telemetry {

inline constexpr int kStoreSchemaVersion = 1;

struct StoreOptions {
  double retention_s = 7 * 86400.0;       // rows older than this are deleted
  double downsample_after_s = 86400.0;    // raw rows older than this are averaged...
  double downsample_step_s = 60;          // ...into buckets of this size
  double interval_s = 1;                  // step recorded on raw rows
};

struct StoredDevice {
  std::int64_t id = 0;  // key for query()
  std::string host, backend, uuid, model;
  int index = 0;
  std::optional<double> mem_total_bytes;
};

struct StoredSample {
  double time_s = 0;  // Unix time (start of the bucket for downsampled rows)
  double step_s = 0;  // the interval this row covers
  DeviceSample sample;  // processes are not stored; sample.job is the job label, sample.pod the pod
};

// The columns `rooftop analyze` reads, as plain numbers: NaN where a value
// was not recorded. Cheaper to produce than StoredSample (no optionals, no
// strings), which matters at 20 M rows: SQLite's cost grows with every
// column read, so only these are.
struct SampleRow {
  double time_s = 0;
  double gpu_util_pct = 0, mem_copy_util_pct = 0, fb_used_bytes = 0, fb_free_bytes = 0, temp_c = 0, power_w = 0,
         sm_clock_mhz = 0, throttle_reasons = 0;
};
struct HostRow {
  double time_s = 0;
  double cpu_busy_pct = 0, cpu_iowait_pct = 0;  // NaN when not recorded
};
// The first rows of a device in a window: how often it was sampled and
// under which job.
struct RowHead {
  double step_s = 0;
  std::int64_t job_id = 0;  // key into Store::jobs(); 0 = no job label
};

struct StoredHostSample {
  double time_s = 0;
  double step_s = 0;
  HostSample host;  // core_busy_pct is not stored
};

class Store {
 public:
  // Opens or creates the database for writing. Every problem is reported
  // now, naming the file: not a database or corrupt, written by a newer
  // rooftop, locked by another writer, or not writable (Errc::invalid_input,
  // so `rooftop monitor` exits 2 before it starts serving).
  static Result<std::unique_ptr<Store>> open(const std::string& path, const StoreOptions& opts);
  // Opens an existing database for reading only (analyze). The connection
  // is for one thread: open one per reader thread.
  static Result<std::unique_ptr<Store>> open_read_only(const std::string& path);
  ~Store();

  // Writes one round (all devices and the host) in one transaction.
  Result<void> append(const Snapshot& snap);
  // Retention and downsampling relative to `now_s` (Unix time).
  Result<void> maintain(double now_s);

  // Read API.
  Result<std::vector<StoredDevice>> devices();
  // Rows of one device with from_s <= time < to_s, oldest first, streamed.
  Result<void> scan(std::int64_t device_id, double from_s, double to_s,
                    const std::function<void(const StoredSample&)>& fn);
  // The same rows as scan() as SampleRows, handed over in batches of up to
  // a few thousand; only rows labelled `job_id` when it is set. The fast
  // path for long windows.
  Result<void> scan_rows(std::int64_t device_id, double from_s, double to_s,
                         const std::function<void(const SampleRow* rows, std::size_t n)>& fn,
                         std::optional<std::int64_t> job_id = std::nullopt);
  // Step and job of the first `limit` rows of scan_rows().
  Result<std::vector<RowHead>> head(std::int64_t device_id, double from_s, double to_s,
                                    std::optional<std::int64_t> job_id, std::size_t limit);
  // Host CPU rows in [from_s, to_s), in batches, like scan_rows().
  Result<void> scan_host_rows(const std::string& host, double from_s, double to_s,
                              const std::function<void(const HostRow* rows, std::size_t n)>& fn);
  // Job labels by id.
  Result<std::map<std::int64_t, std::string>> jobs();
  Result<std::vector<StoredSample>> query(std::int64_t device_id, double from_s, double to_s);
  // (oldest, newest) sample time over all devices (Unix s); invalid_input when empty.
  Result<std::pair<double, double>> time_range();
  Result<std::vector<StoredHostSample>> query_host(const std::string& host, double from_s, double to_s);

  const std::string& path() const { return path_; }

 private:
  Store(sqlite3* db, std::string path, StoreOptions opts) : db_(db), path_(std::move(path)), opts_(opts) {}
  Result<void> exec(const char* sql);
  Result<std::int64_t> device_id(const DeviceInfo& d);
  Result<std::int64_t> job_id(const std::string& job);
  Result<std::int64_t> pod_id(const PodRef& pod);
  Error fail(const std::string& what) const;

  sqlite3* db_ = nullptr;
  std::string path_;
  StoreOptions opts_;
  std::map<std::string, std::int64_t> device_ids_;
  std::map<std::string, std::int64_t> job_ids_;
  std::map<std::string, std::int64_t> pod_ids_;
  bool has_pods_ = true;  // samples.pod_id exists (stores from before it lack it)
};

}  // namespace rooftop::telemetry
