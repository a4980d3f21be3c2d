// The benchmark runner (google/benchmark style: the runner is separate from
// the kernels and from the reporters). A kernel is a Descriptor; the runner
// calls setup once, grows the repetition count until one timed call lasts at
// least `min_sample_s` (that growth doubles as the warm-up, as likwid-bench's
// and STREAM's discarded first iteration do), takes `samples` timed calls,
// then calls verify. Rates are work/time per sample; the statistics are the
// median, p10/p90 and min/max of those rates, so a shared, noisy machine is
// reported honestly (anchors: "report median, range and best").
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "bench/bench.h"

namespace rooftop::bench {

// Work done by `reps` repetitions of a kernel, all threads together.
struct Work {
  double flops = 0;
  double bytes = 0;
};

struct Descriptor {
  std::string name;                                  // "fp64 avx512_fma", "triad 2 thr 48 KiB"
  std::function<Work(std::uint64_t reps)> work;      // exact, from the kernel's structure
  std::function<Result<void>()> setup;               // allocate + first-touch; may be empty
  std::function<void(std::uint64_t reps)> run;       // does the work; the runner times it
  std::function<Result<void>()> verify;              // checks the result of the last run
  // Optional: the kernel's own time of the last run, taken inside the
  // threads between barriers and maxed over them (likwid-bench's method).
  // Without it the runner's wall clock counts, which on a crowded machine
  // includes the time sleeping threads need to wake up.
  std::function<double()> inner_seconds;
};

struct RunnerOptions {
  double min_sample_s = 0.2;       // one timed call lasts at least this long
  int samples = 5;                 // timed calls after the warm-up
  std::uint64_t max_reps = 1ull << 40;
};

struct Measurement {
  std::uint64_t reps = 0;          // repetitions per sample
  Stats seconds;                   // per sample
  Stats flop_per_s;                // work.flops / seconds (0 when the kernel does no FLOPs)
  Stats bytes_per_s;
  bool verified = false;
};

// Runs one descriptor. Errors from setup or verify are returned (a kernel
// whose result is wrong has no rate worth reporting).
Result<Measurement> run_benchmark(const Descriptor& d, const RunnerOptions& o);

// Statistics over raw samples (linear interpolation between order statistics,
// like numpy.percentile's default). An empty input gives all zeros.
Stats make_stats(std::vector<double> samples);
// Percentile q in [0, 100] of sorted values.
double percentile(const std::vector<double>& sorted, double q);

// Next repetition count while calibrating: aims at 1.25x the target so a
// small jitter does not need another round; at least doubles, at most x100.
std::uint64_t next_reps(std::uint64_t reps, double elapsed_s, double target_s);

}  // namespace rooftop::bench
