// Level naming and per-level reduction of a working-set sweep.
#include "bench/memory_levels.h"

#include <algorithm>
#include <cmath>

#include "bench/runner.h"

namespace rooftop::bench {

double reachable_bytes(const Cache& c, int threads, int cpus_per_core) {
  int cores_sharing = std::max(1, c.shared_by_cpus / std::max(1, cpus_per_core));
  int instances = (std::max(1, threads) + cores_sharing - 1) / cores_sharing;
  return c.size_bytes * instances;
}

std::string level_for(double ws, int threads, const std::vector<Cache>& caches, int cpus_per_core) {
  if (caches.empty()) return ws > 64.0 * 1024 * 1024 ? "DRAM" : "";
  for (const Cache& c : caches) {
    double cap = reachable_bytes(c, threads, cpus_per_core);
    if (ws <= kFitFraction * cap) return "L" + std::to_string(c.level);
    if (ws <= cap) return "";
  }
  double last = reachable_bytes(caches.back(), threads, cpus_per_core);
  return ws >= kDramFactor * last ? "DRAM" : "";
}

std::vector<MemoryLevel> summarize_levels(const std::vector<MemoryPoint>& sweep) {
  struct Group {
    MemoryLevel level;
    std::vector<double> medians;
  };
  std::vector<Group> groups;
  for (const MemoryPoint& p : sweep) {
    if (p.level.empty()) continue;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
      return g.level.kernel == p.kernel && g.level.threads == p.threads && g.level.level == p.level;
    });
    if (it == groups.end()) {
      groups.push_back(Group{MemoryLevel{p.level, p.kernel, p.threads, 0, 0, 0, 0, 0}, {}});
      it = groups.end() - 1;
    }
    it->medians.push_back(p.bytes_per_s.median);
    it->level.best = std::max(it->level.best, p.bytes_per_s.max);
    it->level.working_set_bytes = std::max(it->level.working_set_bytes, p.working_set_bytes);
  }
  std::vector<MemoryLevel> out;
  for (Group& g : groups) {
    Stats s = make_stats(g.medians);
    g.level.bytes_per_s = s.median;
    g.level.p10 = s.p10;
    g.level.p90 = s.p90;
    out.push_back(g.level);
  }
  std::stable_sort(out.begin(), out.end(), [](const MemoryLevel& a, const MemoryLevel& b) {
    if (a.kernel != b.kernel) return a.kernel < b.kernel;
    return a.threads < b.threads;
  });
  return out;
}

std::vector<double> sweep_sizes(double min_per_thread, double max_total, int threads, double factor,
                                double granule) {
  std::vector<double> out;
  threads = std::max(1, threads);
  for (double per = min_per_thread; per * threads <= max_total * (1 + 1e-9); per *= factor) {
    double rounded = std::floor(per / granule) * granule;
    if (rounded <= 0) continue;
    double total = rounded * threads;
    if (out.empty() || total > out.back()) out.push_back(total);
  }
  return out;
}

}  // namespace rooftop::bench
