// Writing the catalog overlay for a measured machine.
#include "bench/profile.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "core/text.h"

namespace rooftop::bench {

std::string default_profile_id(const std::string& hostname) {
  std::string id = "local-";
  for (char c : to_lower(hostname)) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-';
    id += ok ? c : '-';
  }
  if (id == "local-") id += "host";
  return id;
}

std::optional<double> best_peak(const Report& r, Precision p) {
  std::optional<double> best;
  for (const auto& c : r.compute)
    if (!c.gemm && c.precision == p && c.verified && (!best || c.flop_per_s.median > *best)) best = c.flop_per_s.median;
  return best;
}

std::optional<double> best_dram(const Report& r) {
  int threads = 0;
  for (const auto& m : r.memory)
    if (m.level == "DRAM") threads = std::max(threads, m.threads);
  std::optional<double> best;
  for (const auto& m : r.memory)
    if (m.level == "DRAM" && m.threads == threads && (!best || m.bytes_per_s > *best)) best = m.bytes_per_s;
  return best;
}

namespace {
std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}
// YAML double-quoted scalar.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}
}  // namespace

std::string profile_yaml(const Report& r, const std::string& id) {
  const Environment& e = r.env;
  std::ostringstream y;
  std::string clock = e.clock_measured_hz ? num(*e.clock_measured_hz / 1e9) + " GHz measured" : "clock unknown";
  std::string what = "measured by rooftop bench on " + e.date + ", " + (e.cpu_model.empty() ? "unknown CPU" : e.cpu_model) +
                     " (" + std::to_string(e.threads) + " threads pinned one per core, " + clock +
                     "; peaks = median of the peak kernels, bandwidth = best DRAM kernel, STREAM byte counting)";
  y << "# Calibrated profile written by `rooftop bench --save-profile`. Schema: docs/catalog.md\n";
  y << "id: " << id << "\n";
  y << "name: " << quoted("Local " + (e.cpu_model.empty() ? std::string("CPU") : e.cpu_model) + " (" + e.hostname + ", " +
                          std::to_string(e.threads) + " threads)") << "\n";
  y << "vendor: local\n";
  y << "kind: cpu\n";
  std::string model = to_lower(e.cpu_model);
  bool server = model.find("xeon") != std::string::npos || model.find("epyc") != std::string::npos;
  y << "form_factor: " << (server ? "datacenter" : "workstation") << "\n";
  y << "sources:\n";
  y << "  bench: " << quoted(what) << "\n";
  if (e.memory_bytes) y << "  meminfo: " << quoted("/proc/meminfo MemTotal on " + e.hostname + ", " + e.date) << "\n";
  if (!e.caches.empty()) y << "  sysfs: " << quoted("/sys/devices/system/cpu/cpu0/cache on " + e.hostname + ", " + e.date) << "\n";
  y << "compute:\n  source: bench\n";
  for (Precision p : kAllPrecisions) {
    auto v = best_peak(r, p);
    y << "  " << to_string(p) << ": " << (v ? num(*v / 1e12) : std::string("null")) << "\n";
  }
  auto bw = best_dram(r);
  bool any_memory = bw || e.memory_bytes || !e.caches.empty();
  if (any_memory) {
    y << "memory:\n";
    if (bw) y << "  bandwidth_gb_s: {value: " << num(*bw / 1e9) << ", source: bench}\n";
    if (e.memory_bytes) y << "  capacity_gb: {value: " << num(*e.memory_bytes / (1024.0 * 1024 * 1024)) << ", source: meminfo}\n";
    if (!e.caches.empty()) {
      const Cache& llc = e.caches.back();
      y << "  sram_mb: {value: " << num(llc.size_bytes / (1024.0 * 1024)) << ", source: sysfs}\n";
    }
  }
  y << "efficiency:\n  source: bench\n  compute: 1.0\n  memory: 1.0\n";
  std::string notes = "Measured, not quoted: efficiency is 1.0 because the peaks are what this machine sustained.";
  for (const auto& c : r.compute)
    if (c.gemm) {
      auto peak = best_peak(r, c.precision);
      notes += " " + c.unit + " reached " + num(c.flop_per_s.median / 1e9) + " GFLOP/s" +
               (peak && *peak > 0 ? " (" + num(100 * c.flop_per_s.median / *peak) + " % of the peak kernel)" : "") + ".";
    }
  y << "notes: " << quoted(notes) << "\n";
  return y.str();
}

}  // namespace rooftop::bench
