// Analyze: from utilisation curves to an optimisation report.
//
// Data flow: a source (the monitor's SQLite store, or a Prometheus server's
// query_range API for a fleet) feeds raw points into a Profiler, which keeps
// per-device time buckets and exact utilisation histograms in one pass
// (memory independent of the number of points); detectors then read the
// profiles and return Findings ranked by wasted device-hours. Thresholds are
// documented in docs/analyze.md and every one can be overridden.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/enum_table.h"
#include "core/result.h"

namespace rooftop::analyze {

// One observation of one device. NaN = not reported.
struct Obs {
  double t_s = 0;            // Unix seconds
  float util_pct = NAN;      // 0..100
  float mem_copy_pct = NAN;  // memory-controller busy, 0..100
  float fb_used_bytes = NAN;
  float fb_total_bytes = NAN;
  float temp_c = NAN;
  float power_w = NAN;
  float sm_clock_mhz = NAN;
  double throttle_bits = NAN;  // NVML clocks-event reasons bit mask
};

struct DeviceKey {
  std::string host;
  int gpu = 0;
  std::string uuid;
  std::string model;  // as reported ("NVIDIA A100-SXM4-80GB")
  std::string job;    // workload label; "" when unknown (from Prometheus: namespace/pod)
  std::string ns = {};   // Kubernetes namespace and pod the device was attached to, when the series say
  std::string pod = {};  // (initialised so that {host, gpu, uuid, model, job} still builds a key)
  std::string id() const { return host + "/gpu" + std::to_string(gpu); }
};

struct Thresholds {
  double idle_util_pct = 5;           // p95 utilisation below this: idle
  double underused_p95_pct = 30;      // p95 below this (and not idle): under-used
  double target_util_pct = 70;        // utilisation a right-sized fleet should run at
  double io_cpu_pct = 85;             // host CPU busy at or above this...
  double io_iowait_pct = 20;          // ...or iowait at or above this, while
  double io_util_pct = 60;            // device utilisation is below this
  double io_min_fraction = 0.2;       // of the window: io-bound
  double mem_pressure_frac = 0.95;    // device memory used above this fraction...
  double mem_pressure_min_fraction = 0.05;  // ...for this share of the window
  double mem_headroom_frac = 0.5;     // peak memory below this while busy: headroom
  double mem_headroom_min_util_pct = 50;  // mean utilisation for headroom advice
  double throttle_min_fraction = 0.1; // of busy time with thermal/power reasons or clocks held low
  double throttle_clock_ratio = 0.85; // SM clock below this x the busy-time p90 clock...
  double throttle_temp_c = 85;        // ...while this hot,
  double throttle_power_frac = 0.97;  // ...or this close to the power limit
  double straggler_gap_pct = 15;      // utilisation gap to the peers' median...
  double straggler_min_fraction = 0.7;  // ...in this share of the job's active buckets
  double min_window_s = 600;          // shortest window reported

  // Applies "name=value"; errors name the unknown threshold.
  Result<void> set(const std::string& assignment);
  std::vector<std::pair<std::string, double>> list() const;
};

struct Bucket {
  std::uint32_t n = 0;
  float util_sum = 0, util_min = 1e9f, util_max = -1e9f;
  float copy_sum = 0;
  std::uint32_t copy_n = 0;
  float mem_frac_max = NAN, mem_frac_sum = 0;
  std::uint32_t mem_n = 0;
  float temp_max = NAN, power_max = NAN, power_sum = 0;
  std::uint32_t power_n = 0;
  float clock_sum = 0;
  std::uint32_t clock_n = 0;
  std::uint32_t throttle_n = 0;       // samples with thermal/power clocks-event reasons
  std::uint32_t busy_n = 0;           // samples with utilisation >= 50 %
  float util_mean() const { return n ? util_sum / n : NAN; }
};

struct HostBucket {
  std::uint32_t n = 0;
  float cpu_sum = 0, iowait_sum = 0;
  std::uint32_t cpu_n = 0, iowait_n = 0;
};

struct DeviceProfile {
  DeviceKey key;
  std::vector<Bucket> buckets;
  std::vector<std::uint64_t> util_hist;  // 101 bins of 1 %
  std::uint64_t samples = 0;
  double first_s = 0, last_s = 0;
  double step_s = 0;                     // median sampling interval
  std::optional<double> power_limit_w;
  // Window aggregates the server computed (Prometheus' avg_over_time,
  // quantile_over_time, count_over_time) for a device whose points were not
  // read because no detector could flag it; NaN when not screened.
  double screened_util_mean_pct = NAN, screened_util_p95_pct = NAN;
  std::uint64_t screened_samples = 0;
  double util_percentile(double q) const;
  double util_mean() const;
};

struct Profiles {
  double from_s = 0, to_s = 0, bucket_s = 0;
  std::vector<DeviceProfile> devices;
  std::map<std::string, std::vector<HostBucket>> hosts;
  std::uint64_t points = 0;  // observations ingested
  std::size_t devices_read = 0;  // devices whose points were read (the rest: aggregates only); 0 = all
  std::vector<std::string> notes;  // how the source was read ("recording rule ... used")
};

// One pass over raw points; Obs must arrive in time order per device.
class Profiler {
 public:
  Profiler(double from_s, double to_s, double step_s);
  int add_device(const DeviceKey& key, std::optional<double> power_limit_w = std::nullopt);
  void add(int device, const Obs& o);
  void add_host(const std::string& host, double t_s, float cpu_pct, float iowait_pct);
  Profiles finish();
  double bucket_s() const { return bucket_s_; }

 private:
  std::size_t index(double t_s) const;
  Profiles p_;
  double bucket_s_;
  std::vector<double> last_t_;
  std::vector<std::vector<float>> gaps_;
};

// Bucket width for a window: at least 5 samples, at most ~720 buckets,
// rounded to a readable value.
double choose_bucket_s(double duration_s, double step_s);

struct Window {
  double from_s = 0, to_s = 0;
};

// Right-sizing an under-used device through advise (rightsize.h): the
// observed load as a throughput objective, the current part as baseline.
struct RightsizeOption {
  std::string accelerator;  // catalog id
  int count = 1;
  std::string precision;
  double throughput = 0;    // what it serves, in Rightsizing::unit
  std::optional<double> tco_usd;     // over the scenario's horizon
  std::optional<double> saving_usd;  // baseline TCO - this TCO
};
struct Rightsizing {
  std::string scenario;     // advise scenario name
  std::string current;      // catalog id of the observed part
  int count = 1;
  double capacity = 0;      // the most count x current serves of the scenario's workload
  double demand = 0;        // capacity x p95 utilisation / target utilisation
  std::string unit;         // "tokens/s", "samples/s"
  std::optional<double> current_tco_usd;
  std::vector<RightsizeOption> ranking;  // advise's feasible set, best first
};

// What a detector found; one spelling each (JSON, tables, report).
enum class FindingKind { idle, underused, io_bound, throttling, straggler, memory_pressure, memory_headroom };
inline constexpr EnumName<FindingKind> kFindingKinds[] = {
    {FindingKind::idle, "idle"},
    {FindingKind::underused, "underused"},
    {FindingKind::io_bound, "io-bound"},
    {FindingKind::throttling, "throttling"},
    {FindingKind::straggler, "straggler"},
    {FindingKind::memory_pressure, "memory-pressure"},
    {FindingKind::memory_headroom, "memory-headroom"},
};
static_assert(enum_table_complete(kFindingKinds, static_cast<std::size_t>(FindingKind::memory_headroom) + 1));
constexpr std::string_view to_string(FindingKind k) { return enum_name(kFindingKinds, k); }

struct Finding {
  FindingKind kind = FindingKind::idle;
  std::string device;          // DeviceKey::id()
  std::string job;
  std::string ns, pod;         // Kubernetes namespace and pod, when known
  Window window;
  std::vector<std::pair<std::string, double>> evidence;  // named numbers, units in names
  std::string summary;         // one line
  std::string recommendation;
  double wasted_device_hours = 0;  // estimated impact, the ranking key
  std::optional<double> wasted_usd;
  std::optional<Rightsizing> rightsizing;  // under-used findings, given an advise scenario
};

// Runs every detector; findings ranked by wasted device-hours (then kind, device).
std::vector<Finding> detect(const Profiles& p, const Thresholds& t);

}  // namespace rooftop::analyze
