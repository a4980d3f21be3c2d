// bench: measures the machine you have — peak FLOP/s per precision, bandwidth
// per memory level, all-reduce bus bandwidth — the way likwid-bench, the
// Empirical Roofline Toolkit, STREAM and nccl-tests do, and turns the result
// into a catalog profile (`rooftop bench --save-profile`) that predict and
// advise read through --catalog.
//
// Data flow: app/cmd_bench.cpp builds Options, picks a Backend from the one
// registry (registry.cpp: cpu always, cuda when built with ROOFTOP_CUDA), runs
// the suites it asked for, and renders the Report (table or JSON). Every
// kernel is a Descriptor run by runner.h, which owns warm-up, the adaptive
// repetition count and the statistics. Rates are in base units: FLOP/s (OP/s
// for integer formats), bytes/s (10^9 B = 1 GB when printed), seconds.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/precision.h"
#include "core/result.h"

namespace rooftop::bench {

// Median, 10th/90th percentile, min and max of raw samples (rates or times).
struct Stats {
  std::vector<double> samples;
  double median = 0, p10 = 0, p90 = 0, min = 0, max = 0;
};

struct Options {
  int threads = 0;                 // CPU threads (0 = one per core), pinned one per core
  int device = 0;                  // cuda:N
  bool quick = false;              // seconds instead of minutes (CI)
  int ranks = 0;                   // collective processes (0 = one per core, at least 2)
  double link_bytes_per_s = 0;     // --link-gbps, for eta; 0 = not given
  std::string sysfs_root = "/sys"; // where cache sizes and topology are read (tests use fixtures)
  // Progress callback (fraction of the current suite in [0,1], detail); may be empty.
  std::function<void(double, const std::string&)> progress;
};

// One compute kernel's result. `theoretical_*` is empty when the per-cycle
// rate of the instruction is not documented (then the ratio is unknown too).
struct ComputeResult {
  Precision precision = Precision::fp32;
  std::string unit;                          // "avx512_fma", "amx", "openblas_sgemm", "cublas"
  bool gemm = false;                         // a library GEMM (achievable) rather than a peak kernel
  int threads = 1;
  Stats flop_per_s;                          // FLOP/s (OP/s for int8)
  std::optional<double> theoretical_flop_per_s;          // at Environment::clock_theory_hz
  std::optional<double> theoretical_nominal_flop_per_s;  // at the nominal (TSC/base) clock
  std::optional<double> flop_per_cycle_per_core;         // the assumption behind the theory
  std::string assumption;                    // words: units, lanes, issue rate, source
  bool verified = false;
};

// One point of the working-set sweep (STREAM byte counting: application
// bytes, no write-allocate; "triad_nt" uses non-temporal stores).
struct MemoryPoint {
  std::string kernel;        // "copy", "triad", "triad_nt", "device_triad", "h2d", "d2h"
  int threads = 1;
  double working_set_bytes = 0;  // all threads together
  std::string level;         // "L1", "L2", "L3", "DRAM", "" = between levels
  Stats bytes_per_s;
  bool verified = false;
};

// Sustained bandwidth of one level: the median of the sweep points that sit
// well inside it (see level_for in memory_levels.h).
struct MemoryLevel {
  std::string level;
  std::string kernel;
  int threads = 1;
  double working_set_bytes = 0;  // the largest point used
  double bytes_per_s = 0;
  double p10 = 0, p90 = 0;       // spread of the points' medians
  double best = 0;               // the fastest single repetition of any point
};

// One all-reduce size (nccl-tests definitions, see collective.h).
struct CollectiveResult {
  std::string backend;       // "mpi", "nccl"
  double bytes = 0;          // S = count * sizeof(float)
  int ranks = 2;
  Stats time_s;              // per call, averaged over ranks, per sample
  double algbw_bytes_per_s = 0;
  double busbw_bytes_per_s = 0;
  std::optional<double> eta;  // (n-1)/n * algbw / link peak, when --link-gbps is given
  bool verified = false;
};

struct Cache {
  int level = 0;                   // 1, 2, 3
  std::string type;                // "Data", "Unified"
  double size_bytes = 0;
  int shared_by_cpus = 1;          // logical CPUs sharing one instance
};

struct Environment {
  std::string hostname, cpu_model, vendor, kernel, date;  // date: YYYY-MM-DD
  std::vector<std::string> isa;    // "avx2", "fma", "avx512f", "avx512_fp16", "amx_bf16", ...
  int logical_cpus = 0, cores = 0, threads = 0;
  std::vector<int> pinned_cpus;
  std::optional<double> clock_nominal_hz;   // TSC / "cpu MHz"
  std::optional<double> clock_measured_hz;  // dependent add-chain probe, when credible (clock.h)
  std::vector<double> clock_probe_hz;       // the probe's raw figures, one per try
  std::string clock_note;                   // why the probe's figure is not used, or a caveat on it ("" = none)
  std::optional<double> clock_theory_hz;    // the clock theoretical peaks use
  std::string clock_theory_source;          // "measured", "cpufreq max", "/proc/cpuinfo", "model name"
  std::optional<double> memory_bytes;       // MemTotal
  std::vector<Cache> caches;
  std::map<std::string, std::string> libraries;  // "openblas" -> "0.3.21 (core SkylakeX)"
  std::string device;                       // "cpu", "cuda:0 NVIDIA H100 ..."
};

struct Report {
  Environment env;
  std::vector<ComputeResult> compute;
  std::vector<MemoryPoint> sweep;
  std::vector<MemoryLevel> memory;
  std::vector<CollectiveResult> collective;
  std::vector<std::string> notes;  // caveats worth printing (mis-detected BLAS core, skipped units)
};

// A measuring backend (cpu, cuda). Suites a backend lacks return
// Errc::unsupported. Not thread-safe; one suite at a time.
class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  // Static description of the device, filled before any suite runs.
  virtual Result<Environment> describe(const Options& o) = 0;
  virtual Result<std::vector<ComputeResult>> compute(const Options& o, Report& r) = 0;
  virtual Result<std::vector<MemoryPoint>> memory(const Options& o, Report& r) = 0;
  // Device collectives (NCCL on cuda); the cpu backend answers unsupported:
  // CPU collectives run across processes (collective.h's MPI launcher).
  virtual Result<std::vector<CollectiveResult>> collective(const Options& o, Report& r) = 0;
};

// The registry (registry.cpp): "cpu" or "cuda:N" (device index in o.device).
// Unknown names are Errc::invalid_input; cuda in a build without CUDA is
// Errc::unsupported with a message saying how to build it.
Result<std::unique_ptr<Backend>> open_backend(std::string_view device, Options& o);
// Backends compiled into this binary ("cpu", "cuda").
std::vector<std::string> built_backends();
// True when the MPI collective backend is compiled in.
bool have_mpi();
bool have_nccl();
// The OPENBLAS_CORETYPE to run with when the built-in OpenBLAS mis-detects
// this CPU (see cpu_backend.h); nullopt when fine or no OpenBLAS.
std::optional<std::string> openblas_coretype_fix();
// Library versions known without running anything ("openblas", "mpi").
std::map<std::string, std::string> library_versions();

}  // namespace rooftop::bench
