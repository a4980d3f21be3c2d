// What the CPU is and can do, read at run time: ISA extensions from cpuid
// (with the OS support bits from xgetbv, and Linux's AMX permission
// request), cores and caches from sysfs, the clock from a timing probe.
// The binary is built for baseline x86-64 (or any other architecture, where
// every x86 feature reads as absent), so kernels are chosen from this at run
// time, never at build time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/bench.h"

namespace rooftop::bench {

struct CpuFeatures {
  std::string vendor;              // "GenuineIntel", "AuthenticAMD", "" off x86
  int family = 0, model = 0;       // display family/model (cpuid leaf 1)
  bool fma = false, avx2 = false;
  bool avx512f = false, avx512bw = false, avx512vl = false;
  bool avx512_vnni = false, avx512_bf16 = false, avx512_fp16 = false;
  bool amx_tile = false, amx_bf16 = false, amx_int8 = false;  // usable: OS enabled + permission granted
  std::string amx_note;            // why AMX is not usable although cpuid has it

  std::vector<std::string> names() const;  // the true flags, lowercase, /proc/cpuinfo spelling
};

// Reads cpuid/xgetbv; requests AMX permission (arch_prctl) the first time.
const CpuFeatures& cpu_features();

// Physical cores we may run on: the first allowed logical CPU of each
// (package, core) pair, read from <sysfs_root>/devices/system/cpu/cpuN/topology.
// Falls back to every allowed CPU when topology is unreadable.
std::vector<int> cores_to_pin(const std::string& sysfs_root);
// Logical CPUs in this process's affinity mask.
std::vector<int> allowed_cpus();

// Cache levels of cpu0 from <sysfs_root>/devices/system/cpu/cpu0/cache
// (instruction caches skipped), sorted by level.
std::vector<Cache> read_caches(const std::string& sysfs_root);

// "1.5K" style sysfs sizes ("48K", "2048K", "300M") -> bytes; nullopt if malformed.
std::optional<double> parse_cache_size(const std::string& text);
// A "0-3,8,10-11" list -> CPU numbers.
std::vector<int> parse_cpu_list(const std::string& text);

std::string cpu_model_name();                // /proc/cpuinfo "model name"
std::optional<double> nominal_clock_hz();    // /proc/cpuinfo "cpu MHz" (the TSC in a VM)
std::optional<double> memory_total_bytes();  // /proc/meminfo MemTotal
std::optional<double> memory_available_bytes();

// Highest "cpu MHz" over the CPUs in /proc/cpuinfo, in Hz.
std::optional<double> cpuinfo_max_hz();
// Highest cpufreq cpuinfo_max_freq under <sysfs_root>/devices/system/cpu (none in most guests).
std::optional<double> cpufreq_max_hz(const std::string& sysfs_root);

// One chain of 8 x iters dependent register-to-register adds of `step` to
// `seed` (inline asm, 8 adds per loop iteration). Returns
// seed + 8 x iters x step (mod 2^64), so a caller can check that every add
// ran. Register operands, not immediates: Golden Cove-class cores fold
// dependent add-immediate chains at rename, which made an immediate chain
// read 8-12 GHz on a Xeon guest. Portable C++ off x86-64.
std::uint64_t add_chain(std::uint64_t seed, std::uint64_t step, std::uint64_t iters);

// Times add_chain on every CPU of `cpus` at once (pinned), each try lasting
// at least `min_probe_s` on every CPU. Returns one figure per try: the
// median over the CPUs of adds per second (= Hz at one add per cycle).
// Empty off x86-64, or when a chain's result is wrong. The figures are
// evidence for decide_clock (clock.h), not a clock yet.
std::vector<double> probe_clock_hz(const std::vector<int>& cpus, int tries, double min_probe_s);

}  // namespace rooftop::bench
