// The CPU backend: describes the machine (cpuid, sysfs, /proc, clock probe)
// and measures peak FLOP/s per instruction class on threads pinned one per
// core, plus a library GEMM as the achievable dense rate.
#include "bench/backends/cpu_backend.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>

#include "bench/backends/cpu_kernels.h"
#include "bench/clock.h"
#include "bench/runner.h"
#include "core/text.h"

namespace rooftop::bench::cpu {

std::optional<std::string> suggest_openblas_coretype(const std::string& core_name, const CpuFeatures& f) {
  std::string c = to_lower(core_name);
  const bool avx512_core = c == "skylakex" || c == "cooperlake" || c == "sapphirerapids";
  const std::vector<std::string> pre_avx2 = {"prescott", "core2", "penryn", "dunnington", "nehalem", "atom",
                                             "katmai", "coppermine", "northwood", "banias", "sandybridge",
                                             "opteron", "barcelona", "bobcat", "bulldozer", "piledriver",
                                             "steamroller", "excavator", "unknown", ""};
  const bool old = std::find(pre_avx2.begin(), pre_avx2.end(), c) != pre_avx2.end();
  if (f.avx512f && f.avx512bw && f.avx512vl && !avx512_core && (old || c == "haswell")) return "SkylakeX";
  if (f.avx2 && f.fma && old) return "Haswell";
  return std::nullopt;
}

namespace {

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(const GemmLibrary* lib) : lib_(lib) {}
  std::string_view name() const override { return "cpu"; }

  Result<Environment> describe(const Options& o) override {
    Environment& e = env_;
    const CpuFeatures& f = cpu_features();
    std::vector<int> allowed = allowed_cpus();
    std::vector<int> cores = cores_to_pin(o.sysfs_root);
    e.logical_cpus = static_cast<int>(allowed.size());
    e.cores = static_cast<int>(cores.size());
    int threads = o.threads > 0 ? o.threads : e.cores;
    if (threads > e.logical_cpus)
      return make_error(Errc::invalid_input,
                        fmt_threads(threads, e.logical_cpus), "--threads");
    // One per core first, then the remaining logical CPUs (SMT siblings).
    cpus_ = cores;
    for (int c : allowed)
      if (std::find(cpus_.begin(), cpus_.end(), c) == cpus_.end()) cpus_.push_back(c);
    cpus_.resize(static_cast<std::size_t>(threads));
    e.threads = threads;
    e.pinned_cpus = cpus_;
    e.vendor = f.vendor;
    e.isa = f.names();
    e.caches = read_caches(o.sysfs_root);
    e.memory_bytes = memory_total_bytes();
    e.clock_nominal_hz = nominal_clock_hz();
    e.cpu_model = cpu_model_name();
    ClockEvidence clock;
    clock.probe_hz = probe_clock_hz(cpus_, o.quick ? 3 : 5, 0.1);
    clock.cpufreq_max_hz = cpufreq_max_hz(o.sysfs_root);
    clock.cpuinfo_hz = cpuinfo_max_hz();
    clock.model_name_hz = clock_from_model_name(e.cpu_model);
    clock_evidence_ = clock;
    ClockVerdict verdict = decide_clock(clock);
    e.clock_probe_hz = clock.probe_hz;
    e.clock_measured_hz = verdict.measured_hz;
    e.clock_note = verdict.note;
    e.clock_theory_hz = verdict.theory_hz;
    e.clock_theory_source = verdict.theory_source;
    e.device = "cpu";
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    e.hostname = host;
    utsname u{};
    if (uname(&u) == 0) e.kernel = std::string(u.sysname) + " " + u.release + " " + u.machine;
    std::time_t now = std::time(nullptr);
    char date[16];
    std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
    e.date = date;
    e.libraries = library_versions();
    team_ = std::make_unique<Team>(cpus_);
    return e;
  }

  Result<std::vector<ComputeResult>> compute(const Options& o, Report& r) override {
    ROOFTOP_ASSERT(team_);
    const CpuFeatures& f = cpu_features();
    if (!f.amx_note.empty()) r.notes.push_back("AMX not measured: " + f.amx_note);
    std::vector<PeakKernel> kernels = peak_kernels(f);
    std::vector<ComputeResult> out;
    RunnerOptions ro;
    ro.min_sample_s = o.quick ? 0.02 : 0.25;
    ro.samples = o.quick ? 3 : 7;
    const int steps = static_cast<int>(kernels.size()) + (lib_ ? 2 : 0);
    int step = 0;
    for (const PeakKernel& k : kernels) {
      if (o.progress) o.progress(static_cast<double>(step++) / steps, std::string(to_string(k.precision)) + " " + k.unit);
      auto m = run_benchmark(peak_descriptor(k), ro);
      if (!m) return make_error(m.error());
      ComputeResult c;
      c.precision = k.precision;
      c.unit = k.unit;
      c.threads = env_.threads;
      c.flop_per_s = m->flop_per_s;
      c.verified = m->verified;
      c.flop_per_cycle_per_core = k.flop_per_cycle_per_core;
      c.assumption = k.assumption;
      out.push_back(std::move(c));
    }
    settle_clock(out, r);
    if (lib_) {
      if (o.progress) o.progress(static_cast<double>(step) / steps, lib_->name + " gemm");
      auto g = lib_->run(o, env_.threads);
      if (!g) return make_error(g.error());
      auto fix = suggest_openblas_coretype(lib_->core_name(), f);
      if (fix)
        r.notes.push_back(lib_->name + " detected core '" + lib_->core_name() + "' on a CPU it should run as '" +
                          *fix + "': GEMM is several times too slow; run with OPENBLAS_CORETYPE=" + *fix +
                          " (OpenMathLib/OpenBLAS#4267)");
      for (auto& c : *g) out.push_back(std::move(c));
    }
    if (o.progress) o.progress(1.0, "compute done");
    return out;
  }

  Result<std::vector<MemoryPoint>> memory(const Options& o, Report&) override {
    ROOFTOP_ASSERT(team_);
    team_.reset();  // the sweep runs its own teams (1..N threads)
    auto out = memory_sweep(o, env_, cpus_);
    team_ = std::make_unique<Team>(cpus_);
    return out;
  }

  Result<std::vector<CollectiveResult>> collective(const Options&, Report&) override {
    return make_error(Errc::unsupported, "CPU collectives run across MPI processes, not in the cpu backend");
  }

 private:
  static std::string fmt_threads(int want, int have) {
    return "asks for " + std::to_string(want) + " threads but only " + std::to_string(have) +
           " logical CPUs are available";
  }

  // Verifies the instructions against the scalar model on a short run, then
  // times all threads at once; the timed run's checksums must agree.
  Descriptor peak_descriptor(const PeakKernel& k) {
    auto sums = std::make_shared<std::vector<double>>(static_cast<std::size_t>(env_.threads), 0.0);
    Descriptor d;
    d.name = std::string(to_string(k.precision)) + " " + k.unit;
    const double per_iter = k.flops_per_iter * env_.threads;
    d.work = [per_iter](std::uint64_t reps) { return Work{per_iter * static_cast<double>(reps), 0}; };
    d.setup = [k]() -> Result<void> {
      for (std::uint64_t n : {1ull, 7ull, 100ull}) {
        double got = k.run(n), want = k.reference(n);
        double err = std::fabs(got - want) / std::max(1.0, std::fabs(want));
        if (!(err <= k.tolerance))
          return make_error(Errc::internal, "checksum after " + std::to_string(n) + " iterations is " +
                                                std::to_string(got) + ", expected " + std::to_string(want));
      }
      return {};
    };
    Team* team = team_.get();
    auto secs = std::make_shared<std::vector<double>>(sums->size(), 0.0);
    d.run = [team, sums, secs, k](std::uint64_t reps) {
      team->run([&](int t) {
        auto t0 = std::chrono::steady_clock::now();
        (*sums)[static_cast<std::size_t>(t)] = k.run(reps);
        (*secs)[static_cast<std::size_t>(t)] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      });
    };
    d.inner_seconds = [secs] { return *std::max_element(secs->begin(), secs->end()); };
    d.verify = [sums]() -> Result<void> {
      for (double s : *sums)
        if (!std::isfinite(s) || s != sums->front())
          return make_error(Errc::internal, "threads disagree on the checksum of the timed run");
      return {};
    };
    return d;
  }

  const GemmLibrary* lib_;
  // The FMA kernels' rates give a second clock reading (clock.h,
  // corroborate_clock); theory and each kernel's assumption use the verdict.
  void settle_clock(std::vector<ComputeResult>& out, Report& r) {
    const int cores = std::min(env_.threads, env_.cores);
    std::optional<double> kernel_hz;
    for (const ComputeResult& c : out) {
      if (!c.flop_per_cycle_per_core || c.unit.find("fma") == std::string::npos || cores < 1) continue;
      const double hz = c.flop_per_s.median / (*c.flop_per_cycle_per_core * cores);
      if (!kernel_hz || hz > *kernel_hz) kernel_hz = hz;
    }
    ClockVerdict v{env_.clock_measured_hz, env_.clock_theory_hz, env_.clock_theory_source, env_.clock_note};
    v = corroborate_clock(v, clock_evidence_, kernel_hz);
    env_.clock_measured_hz = v.measured_hz;
    env_.clock_theory_hz = v.theory_hz;
    env_.clock_theory_source = v.theory_source;
    env_.clock_note = v.note;
    r.env.clock_measured_hz = v.measured_hz;
    r.env.clock_theory_hz = v.theory_hz;
    r.env.clock_theory_source = v.theory_source;
    r.env.clock_note = v.note;
    for (ComputeResult& c : out) {
      if (!c.flop_per_cycle_per_core) continue;
      const double per_clock = *c.flop_per_cycle_per_core * cores;
      if (v.theory_hz) c.theoretical_flop_per_s = per_clock * *v.theory_hz;
      if (env_.clock_nominal_hz) c.theoretical_nominal_flop_per_s = per_clock * *env_.clock_nominal_hz;
      c.assumption += "; " + std::to_string(cores) + " core(s) x clock (" +
                      (v.theory_source == "measured"
                           ? "measured by a dependent-add probe" + (v.note.empty() ? std::string() : ", " + v.note)
                       : v.theory_hz ? "from " + v.theory_source + ": " + v.note
                                     : "unknown: " + v.note) +
                      ")";
    }
  }

  Environment env_;
  ClockEvidence clock_evidence_;
  std::vector<int> cpus_;
  std::unique_ptr<Team> team_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(const GemmLibrary* lib) { return std::make_unique<CpuBackend>(lib); }

}  // namespace rooftop::bench::cpu
