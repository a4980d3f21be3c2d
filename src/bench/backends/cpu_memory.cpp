// The working-set sweep (ERT/likwid curve): for 1..N threads and each
// kernel, STREAM copy/triad over arrays that every thread allocates and
// first-touches itself, from a fraction of L1 to several times the last-level
// cache; triad with non-temporal stores is added where DRAM is reached.
// Each point is named after its level (memory_levels.h) and verified.
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "bench/backends/cpu_backend.h"
#include "bench/backends/cpu_kernels.h"
#include "bench/memory_levels.h"
#include "bench/runner.h"
#include "core/text.h"

namespace rooftop::bench::cpu {
namespace {

constexpr double kScalar = 0.5;
constexpr std::size_t kAlign = 2u << 20;  // 2 MiB, so THP can back large arrays

// One thread's three arrays (a, b, c), allocated by the caller and first
// touched by the owning thread.
struct Arrays {
  double* base = nullptr;
  std::size_t n_max = 0;  // elements per array
  double* a() const { return base; }
  double* b() const { return base + n_max; }
  double* c() const { return base + 2 * n_max; }
};

void init(const Arrays& x) {
  for (std::size_t i = 0; i < x.n_max; ++i) {
    x.a()[i] = 0;
    x.b()[i] = 1.0 + static_cast<double>(i % 8);
    x.c()[i] = 2.0;
  }
}

bool check(const Arrays& x, StreamKind k, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    double want = k == StreamKind::copy ? x.b()[i] : x.b()[i] + kScalar * x.c()[i];
    if (x.a()[i] != want) return false;
  }
  return true;
}

std::vector<int> thread_counts(int n) {
  std::vector<int> out;
  for (int t = 1; t < n; t *= 2) out.push_back(t);
  out.push_back(n);
  return out;
}

}  // namespace

Result<std::vector<MemoryPoint>> memory_sweep(const Options& o, const Environment& env, const std::vector<int>& cpus) {
  const CpuFeatures& f = cpu_features();
  const std::vector<Cache>& caches = env.caches;
  const int cpus_per_core = std::max(1, env.logical_cpus / std::max(1, env.cores));
  const double l1 = caches.empty() ? 32768.0 : caches.front().size_bytes;
  const double llc = caches.empty() ? 32.0 * 1024 * 1024 : reachable_bytes(caches.back(), env.threads, cpus_per_core);
  // DRAM needs >= 4x the last-level cache; cap by a third of free memory.
  double avail = memory_available_bytes().value_or(8.0 * 1024 * 1024 * 1024);
  double max_total = std::min(std::max(kDramFactor * 2 * llc, 1024.0 * 1024 * 1024), 4096.0 * 1024 * 1024);
  if (o.quick) max_total = std::max(kDramFactor * 1.25 * llc, 64.0 * 1024 * 1024);
  max_total = std::min(max_total, avail / 3);
  const double granule = 3 * 32 * 8;  // 3 arrays x 32 doubles (one unrolled iteration)

  std::vector<MemoryPoint> out;
  std::vector<int> counts = o.quick ? std::vector<int>{env.threads} : thread_counts(env.threads);
  std::vector<StreamKind> kinds = {StreamKind::copy, StreamKind::triad, StreamKind::triad_nt};
  RunnerOptions ro;
  ro.min_sample_s = o.quick ? 0.02 : 0.1;
  ro.samples = o.quick ? 3 : 5;

  // Plan every point first so progress is a true fraction.
  struct Point {
    int threads;
    StreamKind kind;
    double ws;
  };
  std::vector<Point> plan;
  for (int t : counts) {
    std::vector<double> sizes;
    if (o.quick) {
      for (double ws : {0.25 * l1 * t, max_total}) sizes.push_back(std::floor(ws / t / granule) * granule * t);
      if (caches.size() >= 2) {
        double l2 = reachable_bytes(caches[1], t, cpus_per_core) * 0.25;
        sizes.insert(sizes.begin() + 1, std::floor(l2 / t / granule) * granule * t);
      }
    } else {
      sizes = sweep_sizes(0.25 * l1, max_total, t, std::sqrt(2.0), granule);
    }
    for (StreamKind k : kinds) {
      for (double ws : sizes) {
        std::string level = level_for(ws, t, caches, cpus_per_core);
        if (k == StreamKind::triad_nt && level != "DRAM") continue;
        if (o.quick && k == StreamKind::copy) continue;
        plan.push_back({t, k, ws});
      }
    }
  }

  for (int t : counts) {
    std::vector<int> team_cpus(cpus.begin(), cpus.begin() + t);
    Team team(team_cpus);
    double max_ws = 0;
    for (const Point& p : plan)
      if (p.threads == t) max_ws = std::max(max_ws, p.ws);
    const std::size_t n_max = static_cast<std::size_t>(max_ws / t / 8);  // ws covers 2 or 3 arrays; 3 is the bound
    std::vector<Arrays> arrays(static_cast<std::size_t>(t));
    for (auto& x : arrays) {
      x.n_max = n_max / 3 + 32;
      std::size_t bytes = (3 * x.n_max * sizeof(double) + kAlign - 1) / kAlign * kAlign;
      x.base = static_cast<double*>(std::aligned_alloc(kAlign, bytes));
      if (!x.base) {
        for (auto& y : arrays) std::free(y.base);
        return make_error(Errc::io, "cannot allocate " + iec_bytes(static_cast<double>(bytes)) + " for the sweep");
      }
      madvise(x.base, bytes, MADV_HUGEPAGE);
    }
    team.run([&](int i) { init(arrays[static_cast<std::size_t>(i)]); });

    for (const Point& p : plan) {
      if (p.threads != t) continue;
      auto kernel = stream_kernel(p.kind, f);
      if (!kernel) continue;
      const std::size_t n = static_cast<std::size_t>(p.ws / t / bytes_per_element(p.kind)) / 32 * 32;
      if (n == 0) continue;
      if (o.progress)
        o.progress(static_cast<double>(out.size()) / static_cast<double>(plan.size()),
                   std::string(to_string(p.kind)) + " " + std::to_string(t) + " thr " + iec_bytes(p.ws));
      Descriptor d;
      d.name = std::string(to_string(p.kind)) + " " + iec_bytes(p.ws);
      const double bytes_per_rep = bytes_per_element(p.kind) * static_cast<double>(n) * t;
      d.work = [bytes_per_rep](std::uint64_t reps) { return Work{0, bytes_per_rep * static_cast<double>(reps)}; };
      auto fn = kernel->run;
      auto secs = std::make_shared<std::vector<double>>(static_cast<std::size_t>(t), 0.0);
      d.run = [&team, &arrays, fn, n, secs](std::uint64_t reps) {
        team.run([&](int i) {
          const Arrays& x = arrays[static_cast<std::size_t>(i)];
          auto t0 = std::chrono::steady_clock::now();
          fn(x.a(), x.b(), x.c(), kScalar, n, reps);
          (*secs)[static_cast<std::size_t>(i)] =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        });
      };
      d.inner_seconds = [secs] { return *std::max_element(secs->begin(), secs->end()); };
      StreamKind kind = p.kind;
      d.verify = [&team, &arrays, kind, n]() -> Result<void> {
        std::vector<char> ok(arrays.size(), 0);
        team.run([&](int i) { ok[static_cast<std::size_t>(i)] = check(arrays[static_cast<std::size_t>(i)], kind, n); });
        for (char v : ok)
          if (!v) return make_error(Errc::internal, "destination array differs from the STREAM formula");
        return {};
      };
      auto m = run_benchmark(d, ro);
      if (!m) {
        for (auto& x : arrays) std::free(x.base);
        return make_error(m.error());
      }
      MemoryPoint mp;
      mp.kernel = std::string(to_string(p.kind));
      mp.threads = t;
      mp.working_set_bytes = bytes_per_element(p.kind) * static_cast<double>(n) * t;
      mp.level = level_for(mp.working_set_bytes, t, caches, cpus_per_core);
      mp.bytes_per_s = m->bytes_per_s;
      mp.verified = m->verified;
      out.push_back(std::move(mp));
    }
    for (auto& x : arrays) std::free(x.base);
  }
  if (o.progress) o.progress(1.0, "memory done");
  return out;
}

}  // namespace rooftop::bench::cpu
