// cpuid/xgetbv feature detection, sysfs topology and caches, /proc readers
// and the dependent-chain clock probe.
#include "bench/cpu_info.h"

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "bench/team.h"
#include "core/text.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace rooftop::bench {

std::vector<std::string> CpuFeatures::names() const {
  std::vector<std::string> out;
  auto add = [&](bool on, const char* n) {
    if (on) out.emplace_back(n);
  };
  add(fma, "fma");
  add(avx2, "avx2");
  add(avx512f, "avx512f");
  add(avx512bw, "avx512bw");
  add(avx512vl, "avx512vl");
  add(avx512_vnni, "avx512_vnni");
  add(avx512_bf16, "avx512_bf16");
  add(avx512_fp16, "avx512_fp16");
  add(amx_tile, "amx_tile");
  add(amx_bf16, "amx_bf16");
  add(amx_int8, "amx_int8");
  return out;
}

namespace {

#if defined(__x86_64__)
std::uint64_t xgetbv0() {
  std::uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<std::uint64_t>(hi) << 32) | lo;
}

// Linux (>= 5.16) hands out the 8 KiB AMX tile state only on request.
bool request_amx_permission(std::string& note) {
  constexpr long kArchReqXcompPerm = 0x1023;
  constexpr long kXfeatureXtiledata = 18;
  if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0) return true;
  note = std::string("arch_prctl(ARCH_REQ_XCOMP_PERM, XTILEDATA) failed: ") + std::strerror(errno) +
         " (Linux >= 5.16 is needed for AMX)";
  return false;
}
#endif

CpuFeatures detect() {
  CpuFeatures f;
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(0, &a, &b, &c, &d)) return f;
  unsigned max_leaf = a;
  char vendor[13] = {};
  std::memcpy(vendor, &b, 4);
  std::memcpy(vendor + 4, &d, 4);
  std::memcpy(vendor + 8, &c, 4);
  f.vendor = vendor;
  __get_cpuid(1, &a, &b, &c, &d);
  int base_family = (a >> 8) & 0xf, ext_family = (a >> 20) & 0xff;
  int base_model = (a >> 4) & 0xf, ext_model = (a >> 16) & 0xf;
  f.family = base_family == 0xf ? base_family + ext_family : base_family;
  f.model = (base_family == 0x6 || base_family == 0xf) ? (ext_model << 4) + base_model : base_model;
  bool osxsave = (c >> 27) & 1;
  bool fma = (c >> 12) & 1;
  std::uint64_t xcr0 = osxsave ? xgetbv0() : 0;
  bool os_avx = (xcr0 & 0x6) == 0x6;
  bool os_avx512 = os_avx && (xcr0 & 0xe0) == 0xe0;
  bool os_amx = (xcr0 & 0x60000) == 0x60000;
  if (max_leaf < 7) return f;
  __get_cpuid_count(7, 0, &a, &b, &c, &d);
  unsigned b7 = b, c7 = c, d7 = d;
  __get_cpuid_count(7, 1, &a, &b, &c, &d);
  unsigned a71 = a;
  f.fma = os_avx && fma;
  f.avx2 = os_avx && ((b7 >> 5) & 1);
  f.avx512f = os_avx512 && ((b7 >> 16) & 1);
  f.avx512bw = f.avx512f && ((b7 >> 30) & 1);
  f.avx512vl = f.avx512f && ((b7 >> 31) & 1);
  f.avx512_vnni = f.avx512f && ((c7 >> 11) & 1);
  f.avx512_bf16 = f.avx512f && ((a71 >> 5) & 1);
  f.avx512_fp16 = f.avx512bw && f.avx512vl && ((d7 >> 23) & 1);
  bool amx_tile = (d7 >> 24) & 1;
  if (amx_tile && !os_amx) f.amx_note = "the CPU has AMX but the OS did not enable its state (XCR0)";
  if (amx_tile && os_amx && request_amx_permission(f.amx_note)) {
    f.amx_tile = true;
    f.amx_bf16 = (d7 >> 22) & 1;
    f.amx_int8 = (d7 >> 25) & 1;
  }
#endif
  return f;
}

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return trim(s);
}

// The value of the first "key : value" line of a /proc file.
std::optional<std::string> proc_value(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    if (trim(line.substr(0, colon)) == key) return trim(line.substr(colon + 1));
  }
  return std::nullopt;
}

}  // namespace

const CpuFeatures& cpu_features() {
  static const CpuFeatures f = detect();
  return f;
}

std::vector<int> parse_cpu_list(const std::string& text) {
  std::vector<int> out;
  for (const auto& part : split(trim(text), ',')) {
    auto dash = part.find('-');
    auto lo = parse_int(trim(part.substr(0, dash)));
    auto hi = dash == std::string::npos ? lo : parse_int(trim(part.substr(dash + 1)));
    if (!lo || !hi || *hi < *lo) continue;
    for (long long i = *lo; i <= *hi; ++i) out.push_back(static_cast<int>(i));
  }
  return out;
}

std::optional<double> parse_cache_size(const std::string& text) {
  std::string t = trim(text);
  if (t.empty()) return std::nullopt;
  double mult = 1;
  char last = t.back();
  if (last == 'K' || last == 'k') mult = 1024;
  else if (last == 'M' || last == 'm') mult = 1024.0 * 1024;
  else if (last == 'G' || last == 'g') mult = 1024.0 * 1024 * 1024;
  if (mult != 1) t.pop_back();
  auto v = parse_double(t);
  if (!v || *v <= 0) return std::nullopt;
  return *v * mult;
}

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> out;
  if (sched_getaffinity(0, sizeof set, &set) != 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    for (int i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  for (int i = 0; i < CPU_SETSIZE; ++i)
    if (CPU_ISSET(i, &set)) out.push_back(i);
  return out;
}

std::vector<int> cores_to_pin(const std::string& sysfs_root) {
  std::vector<int> out;
  std::set<std::pair<long long, long long>> seen;
  for (int cpu : allowed_cpus()) {
    std::string dir = sysfs_root + "/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    auto pkg = parse_int(read_line(dir + "physical_package_id"));
    auto core = parse_int(read_line(dir + "core_id"));
    if (!pkg || !core) return allowed_cpus();
    if (seen.insert({*pkg, *core}).second) out.push_back(cpu);
  }
  return out;
}

std::vector<Cache> read_caches(const std::string& sysfs_root) {
  std::vector<Cache> out;
  std::string base = sysfs_root + "/devices/system/cpu/cpu0/cache";
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(base, ec)) {
    std::string name = e.path().filename().string();
    if (!starts_with(name, "index")) continue;
    std::string dir = e.path().string() + "/";
    Cache c;
    c.type = read_line(dir + "type");
    if (c.type == "Instruction") continue;
    auto level = parse_int(read_line(dir + "level"));
    auto size = parse_cache_size(read_line(dir + "size"));
    if (!level || !size) continue;
    c.level = static_cast<int>(*level);
    c.size_bytes = *size;
    c.shared_by_cpus = std::max<int>(1, static_cast<int>(parse_cpu_list(read_line(dir + "shared_cpu_list")).size()));
    out.push_back(c);
  }
  std::sort(out.begin(), out.end(), [](const Cache& a, const Cache& b) { return a.level < b.level; });
  return out;
}

std::string cpu_model_name() {
  return proc_value("/proc/cpuinfo", "model name").value_or("");
}

std::optional<double> nominal_clock_hz() {
  auto v = proc_value("/proc/cpuinfo", "cpu MHz");
  if (!v) return std::nullopt;
  auto mhz = parse_double(*v);
  if (!mhz || *mhz <= 0) return std::nullopt;
  return *mhz * 1e6;
}

namespace {
std::optional<double> meminfo_bytes(const std::string& key) {
  auto v = proc_value("/proc/meminfo", key);
  if (!v) return std::nullopt;
  auto kb = parse_double(split(*v, ' ').front());
  if (!kb) return std::nullopt;
  return *kb * 1024;
}
}  // namespace

std::optional<double> memory_total_bytes() { return meminfo_bytes("MemTotal"); }
std::optional<double> memory_available_bytes() { return meminfo_bytes("MemAvailable"); }

std::optional<double> cpuinfo_max_hz() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  std::optional<double> best;
  while (std::getline(in, line)) {
    auto colon = line.find(':');
    if (colon == std::string::npos || trim(line.substr(0, colon)) != "cpu MHz") continue;
    auto mhz = parse_double(trim(line.substr(colon + 1)));
    if (mhz && *mhz > 0 && (!best || *mhz * 1e6 > *best)) best = *mhz * 1e6;
  }
  return best;
}

std::optional<double> cpufreq_max_hz(const std::string& sysfs_root) {
  std::optional<double> best;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(sysfs_root + "/devices/system/cpu", ec)) {
    auto khz = parse_double(read_line(e.path().string() + "/cpufreq/cpuinfo_max_freq"));
    if (khz && *khz > 0 && (!best || *khz * 1e3 > *best)) best = *khz * 1e3;
  }
  return best;
}

std::uint64_t add_chain(std::uint64_t seed, std::uint64_t step, std::uint64_t iters) {
  std::uint64_t x = seed;
#if defined(__x86_64__)
  if (iters == 0) return x;
  __asm__ volatile(
      "1:\n\t"
      "add %[k], %[x]\n\tadd %[k], %[x]\n\tadd %[k], %[x]\n\tadd %[k], %[x]\n\t"
      "add %[k], %[x]\n\tadd %[k], %[x]\n\tadd %[k], %[x]\n\tadd %[k], %[x]\n\t"
      "dec %[n]\n\tjnz 1b\n\t"
      : [x] "+r"(x), [n] "+r"(iters)
      : [k] "r"(step)
      : "cc");
#else
  volatile std::uint64_t k = step;
  for (std::uint64_t i = 0; i < 8 * iters; ++i) x += k;
#endif
  return x;
}

std::vector<double> probe_clock_hz(const std::vector<int>& cpus, int tries, double min_probe_s) {
  std::vector<double> out;
#if defined(__x86_64__)
  if (cpus.empty()) return out;
  Team team(cpus);
  const std::size_t n = cpus.size();
  std::vector<double> secs(n, 0);
  std::vector<std::uint64_t> sums(n, 0);
  const std::uint64_t step = 0x9e3779b97f4a7c15ull;  // any odd constant: the sum is checked below
  auto timed = [&](std::uint64_t iters) {
    team.run([&](int i) {
      auto u = static_cast<std::size_t>(i);
      auto t0 = std::chrono::steady_clock::now();
      sums[u] = add_chain(static_cast<std::uint64_t>(i), step, iters);
      secs[u] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    });
    for (std::size_t i = 0; i < n; ++i)
      if (sums[i] != i + 8 * iters * step) return false;
    return true;
  };
  // Calibrate on ~10 ms at a nominal 3 GHz, then size each try to 1.25 x
  // min_probe_s at the fastest rate seen; a try any CPU finished early is
  // repeated with more iterations.
  std::uint64_t iters = static_cast<std::uint64_t>(0.01 * 3e9 / 8);
  if (!timed(iters)) return {};
  for (int t = 0, attempts = 0; t < std::max(1, tries) && attempts < 4 * std::max(1, tries); ++attempts) {
    double fastest = 0;
    for (double s : secs) fastest = std::max(fastest, 8.0 * static_cast<double>(iters) / std::max(s, 1e-9));
    iters = std::max(iters, static_cast<std::uint64_t>(1.25 * min_probe_s * fastest / 8));
    if (!timed(iters)) return {};
    if (*std::min_element(secs.begin(), secs.end()) < min_probe_s) continue;
    std::vector<double> rates;
    for (double s : secs) rates.push_back(8.0 * static_cast<double>(iters) / s);
    std::sort(rates.begin(), rates.end());
    out.push_back(rates[rates.size() / 2]);
    ++t;
  }
#else
  (void)cpus;
  (void)tries;
  (void)min_probe_s;
#endif
  return out;
}

}  // namespace rooftop::bench
