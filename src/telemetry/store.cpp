// Store implementation (schema in docs/monitor.md; contract in store.h).
#include "telemetry/store.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include "telemetry/metrics.h"

namespace rooftop::telemetry {
namespace {

// The samples and host_samples columns come from the metric table
// (telemetry/metrics.h), in its order: stored device rows, then host rows.
template <class Fn>
void for_stored(Fn&& fn) {
  for (const DeviceMetric& m : kDeviceMetrics) {
    if (m.stored) fn(m);
  }
}

std::string join_columns(std::string_view prefix, bool device) {
  std::string out;
  auto add = [&](std::string_view col) { out += fmt::format("{}{}{}", out.empty() ? "" : ", ", prefix, col); };
  if (device) for_stored([&](const DeviceMetric& m) { add(m.column); });
  else for (const HostMetric& m : kHostMetrics) add(m.column);
  return out;
}

// Column lists shared by insert, downsampling and reads (same order).
const std::string& sample_cols() {
  static const std::string cols = join_columns("", true);
  return cols;
}
const std::string& host_cols() {
  static const std::string cols = join_columns("", false);
  return cols;
}

std::string schema() {
  std::string dev, host;
  for_stored([&](const DeviceMetric& m) {
    dev += fmt::format("{} {}, ", m.column, m.field.real ? "REAL" : "INTEGER");
  });
  for (const HostMetric& m : kHostMetrics) host += fmt::format("{} REAL, ", m.column);
  return fmt::format(R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS devices(
  id INTEGER PRIMARY KEY, host TEXT NOT NULL, backend TEXT NOT NULL, uuid TEXT NOT NULL,
  idx INTEGER NOT NULL, model TEXT NOT NULL, mem_total_bytes REAL,
  UNIQUE(host, backend, uuid));
CREATE TABLE IF NOT EXISTS jobs(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS pods(
  id INTEGER PRIMARY KEY, namespace TEXT NOT NULL, pod TEXT NOT NULL, container TEXT NOT NULL,
  UNIQUE(namespace, pod, container));
CREATE TABLE IF NOT EXISTS samples(
  device_id INTEGER NOT NULL, ts_ms INTEGER NOT NULL, step_s REAL NOT NULL, job_id INTEGER,
  {}pod_id INTEGER,
  PRIMARY KEY(device_id, ts_ms)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS host_samples(
  host TEXT NOT NULL, ts_ms INTEGER NOT NULL, step_s REAL NOT NULL,
  {}PRIMARY KEY(host, ts_ms)) WITHOUT ROWID;
)sql",
                     dev, host);
}

constexpr std::size_t kStoredDeviceColumns = [] {
  std::size_t n = 0;
  for (const DeviceMetric& m : kDeviceMetrics) n += m.stored ? 1 : 0;
  return n;
}();

// True when `table` has `column` (stores written before it was added lack it).
bool has_column(sqlite3* db, const char* table, const char* column) {
  sqlite3_stmt* q = nullptr;
  bool found = false;
  if (sqlite3_prepare_v2(db, fmt::format("PRAGMA table_info({})", table).c_str(), -1, &q, nullptr) == SQLITE_OK) {
    while (sqlite3_step(q) == SQLITE_ROW) {
      const unsigned char* name = sqlite3_column_text(q, 1);
      if (name && std::string_view(reinterpret_cast<const char*>(name)) == column) found = true;
    }
  }
  sqlite3_finalize(q);
  return found;
}

std::string placeholders(std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += i ? ",?" : "?";
  return out;
}

class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) { rc_ = sqlite3_prepare_v2(db, sql, -1, &s_, nullptr); }
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  bool ok() const { return rc_ == SQLITE_OK; }
  sqlite3_stmt* get() { return s_; }
  void bind(int i, const std::optional<double>& v) {
    v ? sqlite3_bind_double(s_, i, *v) : sqlite3_bind_null(s_, i);
  }
  void bind_int(int i, std::optional<std::int64_t> v) { v ? sqlite3_bind_int64(s_, i, *v) : sqlite3_bind_null(s_, i); }
  void bind_text(int i, const std::string& v) { sqlite3_bind_text(s_, i, v.c_str(), -1, SQLITE_TRANSIENT); }
  std::optional<double> col(int i) {
    if (sqlite3_column_type(s_, i) == SQLITE_NULL) return std::nullopt;
    return sqlite3_column_double(s_, i);
  }
  std::optional<std::int64_t> col_int(int i) {
    if (sqlite3_column_type(s_, i) == SQLITE_NULL) return std::nullopt;
    return sqlite3_column_int64(s_, i);
  }
  std::string col_text(int i) {
    const unsigned char* t = sqlite3_column_text(s_, i);
    return t ? reinterpret_cast<const char*>(t) : "";
  }

 private:
  sqlite3_stmt* s_ = nullptr;
  int rc_ = SQLITE_ERROR;
};

std::int64_t to_ms(double s) { return static_cast<std::int64_t>(std::llround(s * 1000)); }

// max(x & bit) | ... over the 16 low bits: the OR of a bit mask across a bucket.
std::string or_of_bits(std::string_view col) {
  std::string out;
  for (int b = 0; b < 16; ++b) out += fmt::format("{}max({} & {})", b ? " | " : "", col, 1 << b);
  return out;
}

// How one column folds a downsampling bucket (metric table's Fold).
std::string fold(std::string_view col, Fold f) {
  switch (f) {
    case Fold::avg: return fmt::format("avg({})", col);
    case Fold::max: return fmt::format("max({})", col);
    case Fold::bit_or: return or_of_bits(col);
  }
  return fmt::format("avg({})", col);
}

std::string folds(bool device) {
  std::string out;
  auto add = [&](std::string_view col, Fold f) { out += ", " + fold(col, f); };
  if (device) for_stored([&](const DeviceMetric& m) { add(m.column, m.fold); });
  else for (const HostMetric& m : kHostMetrics) add(m.column, m.fold);
  return out;
}

// Opening problems: which kind, said plainly.
std::string explain(int rc, const char* msg) {
  switch (rc & 0xff) {
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT: return std::string("the file is not a rooftop database or is corrupt (") + msg + ")";
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return "the database is locked by another process (is another rooftop monitor writing it?)";
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
    case SQLITE_IOERR: return std::string("cannot write the database or its directory (") + msg + ")";
    default: return msg;
  }
}

}  // namespace

Error Store::fail(const std::string& what) const {
  const int rc = sqlite3_extended_errcode(db_);
  return Error{Errc::io, what + ": " + explain(rc, sqlite3_errmsg(db_)), path_};
}

Result<void> Store::exec(const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    sqlite3_free(err);
    return make_error(fail("database error"));
  }
  return {};
}

Result<std::unique_ptr<Store>> Store::open(const std::string& path, const StoreOptions& opts) {
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  std::unique_ptr<Store> store(new Store(db, path, opts));
  auto bad = [&](const std::string& what) {
    Error e = store->fail(what);
    e.code = Errc::invalid_input;
    return make_error(std::move(e));
  };
  if (rc != SQLITE_OK) return bad("cannot open");
  sqlite3_busy_timeout(db, 1000);
  {
    Stmt wal(db, "PRAGMA journal_mode=WAL");
    if (!wal.ok() || sqlite3_step(wal.get()) != SQLITE_ROW) return bad("cannot open");
    if (wal.col_text(0) != "wal")
      return make_error(Errc::invalid_input, "cannot switch to WAL mode (journal_mode is " + wal.col_text(0) + ")", path);
  }
  if (!store->exec("PRAGMA synchronous=NORMAL")) return bad("cannot configure");
  if (sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK) return bad("cannot lock");
  if (sqlite3_exec(db, schema().c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
    Error e = store->fail("cannot create the schema");
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    e.code = Errc::invalid_input;
    return make_error(std::move(e));
  }
  // samples.pod_id came after the first stores: added in place (a NULL
  // column; readers of older files see no pod).
  if (!has_column(db, "samples", "pod_id") &&
      sqlite3_exec(db, "ALTER TABLE samples ADD COLUMN pod_id INTEGER", nullptr, nullptr, nullptr) != SQLITE_OK) {
    Error e = store->fail("cannot add the pod column");
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    e.code = Errc::invalid_input;
    return make_error(std::move(e));
  }
  {
    Stmt v(db, "SELECT value FROM meta WHERE key='schema_version'");
    if (v.ok() && sqlite3_step(v.get()) == SQLITE_ROW) {
      const int version = std::atoi(v.col_text(0).c_str());
      if (version != kStoreSchemaVersion) {
        sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
        return make_error(Errc::invalid_input,
                          fmt::format("database schema version {} is not the version {} this rooftop writes", version,
                                      kStoreSchemaVersion),
                          path);
      }
    }
  }
  const std::string set_version =
      fmt::format("INSERT OR IGNORE INTO meta VALUES('schema_version', '{}');"
                  "INSERT OR IGNORE INTO meta VALUES('created_by', 'rooftop');COMMIT",
                  kStoreSchemaVersion);
  if (sqlite3_exec(db, set_version.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
    Error e = store->fail("cannot write");
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    e.code = Errc::invalid_input;
    return make_error(std::move(e));
  }
  return store;
}

Result<std::unique_ptr<Store>> Store::open_read_only(const std::string& path) {
  sqlite3* db = nullptr;
  // NOMUTEX: the connection serves one thread (store.h), so SQLite's
  // per-call locking is pure cost on the read path.
  const int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
  std::unique_ptr<Store> store(new Store(db, path, {}));
  if (rc != SQLITE_OK) return make_error(store->fail("cannot open").code, store->fail("cannot open").message, path);
  sqlite3_busy_timeout(db, 2000);
  Stmt v(db, "SELECT value FROM meta WHERE key='schema_version'");
  if (!v.ok() || sqlite3_step(v.get()) != SQLITE_ROW) {
    Error e = store->fail("not a rooftop history database");
    e.code = Errc::invalid_input;
    return make_error(std::move(e));
  }
  if (std::atoi(v.col_text(0).c_str()) != kStoreSchemaVersion)
    return make_error(Errc::invalid_input, "unsupported schema version " + v.col_text(0), path);
  // No mmap (SQLite's default): a memory-mapped 1 GB store read end to end
  // made analyze's RSS 2.4 GB and was no faster than reads through its small
  // page cache (30 days x 8 devices: 8.5 s mapped, 7.9 s not; 23 MB RSS).
  store->has_pods_ = has_column(db, "samples", "pod_id");
  return store;
}

Store::~Store() {
  if (db_) sqlite3_close_v2(db_);
}

Result<std::int64_t> Store::device_id(const DeviceInfo& d) {
  const std::string key = d.host + '\n' + d.backend + '\n' + d.uuid;
  if (auto it = device_ids_.find(key); it != device_ids_.end()) return it->second;
  Stmt ins(db_,
           "INSERT INTO devices(host, backend, uuid, idx, model, mem_total_bytes) VALUES(?,?,?,?,?,?) "
           "ON CONFLICT(host, backend, uuid) DO UPDATE SET idx=excluded.idx, model=excluded.model, "
           "mem_total_bytes=excluded.mem_total_bytes RETURNING id");
  ins.bind_text(1, d.host);
  ins.bind_text(2, d.backend);
  ins.bind_text(3, d.uuid);
  sqlite3_bind_int(ins.get(), 4, d.index);
  ins.bind_text(5, d.model);
  ins.bind(6, d.mem_total_bytes);
  if (!ins.ok() || sqlite3_step(ins.get()) != SQLITE_ROW) return make_error(fail("cannot record device"));
  return device_ids_[key] = sqlite3_column_int64(ins.get(), 0);
}

Result<std::int64_t> Store::pod_id(const PodRef& pod) {
  const std::string key = pod.ns + '\n' + pod.pod + '\n' + pod.container;
  if (auto it = pod_ids_.find(key); it != pod_ids_.end()) return it->second;
  Stmt ins(db_, "INSERT INTO pods(namespace, pod, container) VALUES(?,?,?) ON CONFLICT(namespace, pod, container) "
                "DO UPDATE SET pod=pod RETURNING id");
  ins.bind_text(1, pod.ns);
  ins.bind_text(2, pod.pod);
  ins.bind_text(3, pod.container);
  if (!ins.ok() || sqlite3_step(ins.get()) != SQLITE_ROW) return make_error(fail("cannot record pod"));
  return pod_ids_[key] = sqlite3_column_int64(ins.get(), 0);
}

Result<std::int64_t> Store::job_id(const std::string& job) {
  if (auto it = job_ids_.find(job); it != job_ids_.end()) return it->second;
  Stmt ins(db_, "INSERT INTO jobs(name) VALUES(?) ON CONFLICT(name) DO UPDATE SET name=name RETURNING id");
  ins.bind_text(1, job);
  if (!ins.ok() || sqlite3_step(ins.get()) != SQLITE_ROW) return make_error(fail("cannot record job"));
  return job_ids_[job] = sqlite3_column_int64(ins.get(), 0);
}

Result<void> Store::append(const Snapshot& snap) {
  ROOFTOP_TRY(exec("BEGIN"));
  auto body = [&]() -> Result<void> {
    const std::int64_t ts = to_ms(snap.time_s);
    Stmt ins(db_, fmt::format("INSERT OR REPLACE INTO samples(device_id, ts_ms, step_s, job_id, pod_id, {}) "
                              "VALUES(?,?,?,?,?,{})",
                              sample_cols(), placeholders(kStoredDeviceColumns))
                      .c_str());
    if (!ins.ok()) return make_error(fail("cannot prepare insert"));
    for (const DeviceReading& r : snap.devices) {
      auto dev = device_id(r.info);
      if (!dev) return make_error(dev.error());
      std::optional<std::int64_t> job;
      if (!r.sample.job.empty()) {
        auto j = job_id(r.sample.job);
        if (!j) return make_error(j.error());
        job = *j;
      }
      const DeviceSample& s = r.sample;
      sqlite3_reset(ins.get());
      sqlite3_bind_int64(ins.get(), 1, *dev);
      sqlite3_bind_int64(ins.get(), 2, ts);
      sqlite3_bind_double(ins.get(), 3, opts_.interval_s);
      ins.bind_int(4, job);
      std::optional<std::int64_t> pod;
      if (!r.sample.pod.pod.empty()) {
        auto p = pod_id(r.sample.pod);
        if (!p) return make_error(p.error());
        pod = *p;
      }
      ins.bind_int(5, pod);
      int col = 6;
      for_stored([&](const DeviceMetric& m) {
        const DeviceField& f = m.field;
        if (f.real) {
          ins.bind(col++, s.*f.real);
        } else if (f.mask) {
          const auto& mask = s.*f.mask;
          ins.bind_int(col++, mask ? std::optional<std::int64_t>(static_cast<std::int64_t>(*mask)) : std::nullopt);
        } else {
          ins.bind_int(col++, s.*f.code);
        }
      });
      if (sqlite3_step(ins.get()) != SQLITE_DONE) return make_error(fail("cannot insert"));
    }
    if (snap.host) {
      const HostSample& h = *snap.host;
      Stmt hi(db_, fmt::format("INSERT OR REPLACE INTO host_samples(host, ts_ms, step_s, {}) VALUES(?,?,?,{})",
                               host_cols(), placeholders(std::size(kHostMetrics)))
                       .c_str());
      hi.bind_text(1, h.host);
      sqlite3_bind_int64(hi.get(), 2, ts);
      sqlite3_bind_double(hi.get(), 3, opts_.interval_s);
      int col = 4;
      for (const HostMetric& m : kHostMetrics) hi.bind(col++, h.*m.field);
      if (!hi.ok() || sqlite3_step(hi.get()) != SQLITE_DONE) return make_error(fail("cannot insert host row"));
    }
    return {};
  };
  if (auto r = body(); !r) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    return r;
  }
  return exec("COMMIT");
}

Result<void> Store::maintain(double now_s) {
  const std::int64_t keep_from = to_ms(now_s - opts_.retention_s);
  const double step = opts_.downsample_step_s;
  const std::int64_t bucket_ms = to_ms(step);
  // Aligned to a bucket boundary so no bucket is split between two passes.
  const std::int64_t cut = bucket_ms > 0 ? to_ms(now_s - opts_.downsample_after_s) / bucket_ms * bucket_ms : 0;
  const std::string sql = fmt::format(
      "BEGIN;"
      "DELETE FROM samples WHERE device_id IN (SELECT id FROM devices) AND ts_ms < {keep};"
      "DELETE FROM host_samples WHERE host IN (SELECT DISTINCT host FROM host_samples) AND ts_ms < {keep};"
      "CREATE TEMP TABLE IF NOT EXISTS ds AS SELECT * FROM samples WHERE 0;"
      "CREATE TEMP TABLE IF NOT EXISTS hds AS SELECT * FROM host_samples WHERE 0;"
      "DELETE FROM temp.ds; DELETE FROM temp.hds;"
      "INSERT INTO temp.ds SELECT device_id, ts_ms / {b} * {b}, {step}, max(job_id){dev_folds}, max(pod_id) FROM samples "
      "WHERE device_id IN (SELECT id FROM devices) AND ts_ms < {cut} AND step_s < {step} "
      "GROUP BY device_id, ts_ms / {b};"
      "DELETE FROM samples WHERE device_id IN (SELECT id FROM devices) AND ts_ms < {cut} AND step_s < {step};"
      "INSERT OR REPLACE INTO samples SELECT * FROM temp.ds;"
      "INSERT INTO temp.hds SELECT host, ts_ms / {b} * {b}, {step}{host_folds} "
      "FROM host_samples WHERE host IN (SELECT DISTINCT host FROM host_samples) AND ts_ms < {cut} AND step_s < {step} "
      "GROUP BY host, ts_ms / {b};"
      "DELETE FROM host_samples WHERE host IN (SELECT DISTINCT host FROM host_samples) AND ts_ms < {cut} "
      "AND step_s < {step};"
      "INSERT OR REPLACE INTO host_samples SELECT * FROM temp.hds;"
      "COMMIT;",
      fmt::arg("keep", keep_from), fmt::arg("b", bucket_ms > 0 ? bucket_ms : 1), fmt::arg("step", step),
      fmt::arg("cut", cut), fmt::arg("dev_folds", folds(true)), fmt::arg("host_folds", folds(false)));
  if (auto r = exec(sql.c_str()); !r) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    return r;
  }
  return {};
}

Result<std::vector<StoredDevice>> Store::devices() {
  Stmt q(db_, "SELECT id, host, backend, uuid, model, idx, mem_total_bytes FROM devices ORDER BY host, backend, idx");
  if (!q.ok()) return make_error(fail("cannot read devices"));
  std::vector<StoredDevice> out;
  while (sqlite3_step(q.get()) == SQLITE_ROW) {
    StoredDevice d;
    d.id = sqlite3_column_int64(q.get(), 0);
    d.host = q.col_text(1);
    d.backend = q.col_text(2);
    d.uuid = q.col_text(3);
    d.model = q.col_text(4);
    d.index = sqlite3_column_int(q.get(), 5);
    d.mem_total_bytes = q.col(6);
    out.push_back(std::move(d));
  }
  return out;
}

Result<std::pair<double, double>> Store::time_range() {
  // Per device, so each bound is one probe of the (device_id, ts_ms) key.
  Stmt q(db_, "SELECT (SELECT min(ts_ms) FROM samples WHERE device_id = d.id), "
              "(SELECT max(ts_ms) FROM samples WHERE device_id = d.id) FROM devices d");
  if (!q.ok()) return make_error(fail("cannot read the time range"));
  std::optional<std::int64_t> lo, hi;
  while (sqlite3_step(q.get()) == SQLITE_ROW) {
    std::optional<std::int64_t> a = q.col_int(0), b = q.col_int(1);
    if (a) lo = lo ? std::min(*lo, *a) : *a;
    if (b) hi = hi ? std::max(*hi, *b) : *b;
  }
  if (!lo || !hi) return make_error(Errc::invalid_input, "the store holds no samples", path_);
  return std::make_pair(static_cast<double>(*lo) / 1000.0, static_cast<double>(*hi) / 1000.0);
}

Result<void> Store::scan(std::int64_t device, double from_s, double to_s,
                         const std::function<void(const StoredSample&)>& fn) {
  // A store written before samples.pod_id existed, opened read-only, has no pods.
  Stmt q(db_, fmt::format("SELECT ts_ms, step_s, jobs.name, {}, {} FROM samples LEFT JOIN jobs ON jobs.id = job_id {} "
                          "WHERE device_id = ? AND ts_ms >= ? AND ts_ms < ? ORDER BY ts_ms",
                          sample_cols(),
                          has_pods_ ? "pods.namespace, pods.pod, pods.container" : "NULL, NULL, NULL",
                          has_pods_ ? "LEFT JOIN pods ON pods.id = samples.pod_id" : "")
                  .c_str());
  if (!q.ok()) return make_error(fail("cannot query samples"));
  sqlite3_bind_int64(q.get(), 1, device);
  sqlite3_bind_int64(q.get(), 2, to_ms(from_s));
  sqlite3_bind_int64(q.get(), 3, to_ms(to_s));
  int rc;
  while ((rc = sqlite3_step(q.get())) == SQLITE_ROW) {
    StoredSample r;
    r.time_s = sqlite3_column_int64(q.get(), 0) / 1000.0;
    r.step_s = sqlite3_column_double(q.get(), 1);
    DeviceSample& s = r.sample;
    s.job = q.col_text(2);
    int col = 3;
    for_stored([&](const DeviceMetric& m) {
      const DeviceField& f = m.field;
      if (f.real) {
        s.*f.real = q.col(col);
      } else if (f.mask) {
        if (auto v = q.col_int(col)) s.*f.mask = static_cast<std::uint64_t>(*v);
      } else {
        s.*f.code = q.col_int(col);
      }
      ++col;
    });
    s.pod = PodRef{q.col_text(col + 1), q.col_text(col), q.col_text(col + 2)};
    fn(r);
  }
  if (rc != SQLITE_DONE) return make_error(fail("cannot read samples"));
  return {};
}

namespace {
// Batches of rows from a prepared statement whose column 0 is ts_ms and
// columns 1..N are numbers (NULL -> NaN); one column call per value.
template <class Row, std::size_t N>
Result<void> stream_rows(sqlite3_stmt* st, double Row::*const (&cols)[N],
                         const std::function<void(const Row*, std::size_t)>& fn, const std::function<Error()>& fail) {
  constexpr std::size_t kBatch = 4096;
  std::vector<Row> rows(kBatch);
  std::size_t n = 0;
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    Row& r = rows[n];
    r.time_s = static_cast<double>(sqlite3_column_int64(st, 0)) / 1000.0;
    for (std::size_t i = 0; i < N; ++i) {
      sqlite3_value* v = sqlite3_column_value(st, static_cast<int>(i + 1));
      r.*cols[i] = sqlite3_value_type(v) == SQLITE_NULL ? std::nan("") : sqlite3_value_double(v);
    }
    if (++n == kBatch) {
      fn(rows.data(), n);
      n = 0;
    }
  }
  if (rc != SQLITE_DONE) return make_error(fail());
  if (n) fn(rows.data(), n);
  return {};
}
}  // namespace

namespace {
// One device's rows in [from, to), optionally of one job, oldest first:
// `columns` selected, `tail` appended (a LIMIT ?5). Parameters ?1..?4 are
// bound by bind_window().
std::string window_sql(const char* columns, bool by_job, const char* tail = "") {
  return fmt::format("SELECT {} FROM samples WHERE device_id = ?1 AND ts_ms >= ?2 AND ts_ms < ?3 {} ORDER BY ts_ms {}",
                     columns, by_job ? "AND job_id = ?4" : "", tail);
}

void bind_window(Stmt& q, std::int64_t device, double from_s, double to_s, std::optional<std::int64_t> job_id) {
  sqlite3_bind_int64(q.get(), 1, device);
  sqlite3_bind_int64(q.get(), 2, to_ms(from_s));
  sqlite3_bind_int64(q.get(), 3, to_ms(to_s));
  if (job_id) sqlite3_bind_int64(q.get(), 4, *job_id);
}
}  // namespace

Result<void> Store::scan_rows(std::int64_t device, double from_s, double to_s,
                              const std::function<void(const SampleRow*, std::size_t)>& fn,
                              std::optional<std::int64_t> job_id) {
  Stmt q(db_, window_sql("ts_ms, gpu_util_pct, mem_copy_util_pct, fb_used_bytes, fb_free_bytes, temp_c, power_w, "
                         "sm_clock_mhz, throttle_reasons",
                         job_id.has_value())
                  .c_str());
  if (!q.ok()) return make_error(fail("cannot query samples"));
  bind_window(q, device, from_s, to_s, job_id);
  static constexpr double SampleRow::*kCols[] = {
      &SampleRow::gpu_util_pct, &SampleRow::mem_copy_util_pct, &SampleRow::fb_used_bytes, &SampleRow::fb_free_bytes,
      &SampleRow::temp_c,       &SampleRow::power_w,           &SampleRow::sm_clock_mhz,  &SampleRow::throttle_reasons};
  return stream_rows<SampleRow>(q.get(), kCols, fn, [this] { return fail("cannot read samples"); });
}

Result<std::vector<RowHead>> Store::head(std::int64_t device, double from_s, double to_s,
                                         std::optional<std::int64_t> job_id, std::size_t limit) {
  Stmt q(db_, window_sql("step_s, job_id", job_id.has_value(), "LIMIT ?5").c_str());
  if (!q.ok()) return make_error(fail("cannot query samples"));
  bind_window(q, device, from_s, to_s, job_id);
  sqlite3_bind_int64(q.get(), 5, static_cast<std::int64_t>(std::min<std::size_t>(limit, 1u << 30)));
  std::vector<RowHead> out;
  int rc;
  while ((rc = sqlite3_step(q.get())) == SQLITE_ROW)
    out.push_back({sqlite3_column_double(q.get(), 0), sqlite3_column_int64(q.get(), 1)});
  if (rc != SQLITE_DONE) return make_error(fail("cannot read samples"));
  return out;
}

Result<void> Store::scan_host_rows(const std::string& host, double from_s, double to_s,
                                   const std::function<void(const HostRow*, std::size_t)>& fn) {
  Stmt q(db_, "SELECT ts_ms, cpu_busy_pct, cpu_iowait_pct FROM host_samples WHERE host = ? AND ts_ms >= ? "
              "AND ts_ms < ? ORDER BY ts_ms");
  if (!q.ok()) return make_error(fail("cannot query host samples"));
  q.bind_text(1, host);
  sqlite3_bind_int64(q.get(), 2, to_ms(from_s));
  sqlite3_bind_int64(q.get(), 3, to_ms(to_s));
  static constexpr double HostRow::*kCols[] = {&HostRow::cpu_busy_pct, &HostRow::cpu_iowait_pct};
  return stream_rows<HostRow>(q.get(), kCols, fn, [this] { return fail("cannot read host samples"); });
}

Result<std::map<std::int64_t, std::string>> Store::jobs() {
  Stmt q(db_, "SELECT id, name FROM jobs");
  if (!q.ok()) return make_error(fail("cannot query jobs"));
  std::map<std::int64_t, std::string> out;
  int rc;
  while ((rc = sqlite3_step(q.get())) == SQLITE_ROW) out[sqlite3_column_int64(q.get(), 0)] = q.col_text(1);
  if (rc != SQLITE_DONE) return make_error(fail("cannot read jobs"));
  return out;
}

Result<std::vector<StoredSample>> Store::query(std::int64_t device, double from_s, double to_s) {
  std::vector<StoredSample> out;
  ROOFTOP_TRY(scan(device, from_s, to_s, [&](const StoredSample& s) { out.push_back(s); }));
  return out;
}

Result<std::vector<StoredHostSample>> Store::query_host(const std::string& host, double from_s, double to_s) {
  Stmt q(db_, fmt::format("SELECT ts_ms, step_s, {} FROM host_samples WHERE host = ? AND ts_ms >= ? AND ts_ms < ? "
                          "ORDER BY ts_ms",
                          host_cols())
                  .c_str());
  if (!q.ok()) return make_error(fail("cannot query host samples"));
  q.bind_text(1, host);
  sqlite3_bind_int64(q.get(), 2, to_ms(from_s));
  sqlite3_bind_int64(q.get(), 3, to_ms(to_s));
  std::vector<StoredHostSample> out;
  int rc;
  while ((rc = sqlite3_step(q.get())) == SQLITE_ROW) {
    StoredHostSample r;
    r.time_s = sqlite3_column_int64(q.get(), 0) / 1000.0;
    r.step_s = sqlite3_column_double(q.get(), 1);
    HostSample& h = r.host;
    h.host = host;
    int col = 2;
    for (const HostMetric& m : kHostMetrics) h.*m.field = q.col(col++);
    out.push_back(std::move(r));
  }
  if (rc != SQLITE_DONE) return make_error(fail("cannot read host samples"));
  return out;
}

}  // namespace rooftop::telemetry
