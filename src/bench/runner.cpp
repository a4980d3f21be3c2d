// The runner: calibration (= warm-up), timed samples, statistics, verify.
#include "bench/runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace rooftop::bench {

double percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  double pos = std::clamp(q, 0.0, 100.0) / 100.0 * static_cast<double>(sorted.size() - 1);
  auto lo = static_cast<std::size_t>(std::floor(pos));
  std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

Stats make_stats(std::vector<double> samples) {
  Stats s;
  s.samples = samples;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.min = samples.front();
  s.max = samples.back();
  s.median = percentile(samples, 50);
  s.p10 = percentile(samples, 10);
  s.p90 = percentile(samples, 90);
  return s;
}

std::uint64_t next_reps(std::uint64_t reps, double elapsed_s, double target_s) {
  double factor = elapsed_s > 0 ? target_s * 1.25 / elapsed_s : 100.0;
  factor = std::clamp(factor, 2.0, 100.0);
  return static_cast<std::uint64_t>(std::ceil(static_cast<double>(reps) * factor));
}

namespace {
double time_call(const Descriptor& d, std::uint64_t reps) {
  auto t0 = std::chrono::steady_clock::now();
  d.run(reps);
  auto t1 = std::chrono::steady_clock::now();
  if (d.inner_seconds) return d.inner_seconds();
  return std::chrono::duration<double>(t1 - t0).count();
}
}  // namespace

Result<Measurement> run_benchmark(const Descriptor& d, const RunnerOptions& o) {
  ROOFTOP_ASSERT(d.run && d.work);
  if (d.setup) ROOFTOP_TRY(d.setup());
  Measurement m;
  m.reps = 1;
  for (;;) {
    double t = time_call(d, m.reps);
    if (t >= o.min_sample_s || m.reps >= o.max_reps) break;
    m.reps = std::min(next_reps(m.reps, t, o.min_sample_s), o.max_reps);
  }
  Work w = d.work(m.reps);
  std::vector<double> secs, flops, bytes;
  for (int i = 0; i < std::max(1, o.samples); ++i) {
    double t = time_call(d, m.reps);
    t = std::max(t, 1e-12);
    secs.push_back(t);
    flops.push_back(w.flops / t);
    bytes.push_back(w.bytes / t);
  }
  m.seconds = make_stats(secs);
  m.flop_per_s = make_stats(flops);
  m.bytes_per_s = make_stats(bytes);
  if (d.verify) {
    auto v = d.verify();
    if (!v) return make_error(Errc::internal, d.name + ": result check failed: " + v.error().message);
  }
  m.verified = true;
  return m;
}

}  // namespace rooftop::bench
