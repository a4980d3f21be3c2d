// Naming the points of a working-set sweep after the memory level they sit
// in, and reducing each level to one sustained bandwidth (the ERT/likwid
// curve read as a roofline's memory ceilings).
//
// Rule (from the cache sizes in sysfs, not from the curve's shape, which is
// fragile on a shared machine — see the research anchors): a working set W
// spread over `threads` threads pinned one per core belongs to cache level
// L when W <= kFitFraction x (the capacity of the L instances those threads
// use), and to DRAM when W >= kDramFactor x that capacity of the last level
// (STREAM's "4x the last-level cache" rule). Anything else is a transition
// and is not used for a level's figure.
#pragma once

#include <string>
#include <vector>

#include "bench/bench.h"

namespace rooftop::bench {

inline constexpr double kFitFraction = 0.5;
inline constexpr double kDramFactor = 4.0;

// Bytes of cache level `c` reachable by `threads` threads pinned one per
// core, with `cpus_per_core` logical CPUs per core (SMT).
double reachable_bytes(const Cache& c, int threads, int cpus_per_core);

// "L1", "L2", "L3", "DRAM" or "" (transition). With no caches known every
// point is "DRAM" only above 64 MiB, else "".
std::string level_for(double working_set_bytes, int threads, const std::vector<Cache>& caches,
                      int cpus_per_core = 1);

// Per (kernel, threads, level): the median of the points' median rates, the
// p10/p90 of those medians, and the largest working set used. Transition
// points are skipped. Order: kernel, threads, then level as first seen.
std::vector<MemoryLevel> summarize_levels(const std::vector<MemoryPoint>& sweep);

// Working-set sizes (all threads together) for a sweep from `min_per_thread`
// bytes per thread to `max_total` bytes, growing by `factor`; each rounded
// down to a multiple of `granule` bytes per thread.
std::vector<double> sweep_sizes(double min_per_thread, double max_total, int threads, double factor,
                                double granule);

}  // namespace rooftop::bench
