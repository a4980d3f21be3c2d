// proc backend: the host as seen through procfs, read from a configurable
// root so tests replay fixture files (tests/data/proc/<case>/proc/...).
//
// CPU utilisation is a delta of /proc/stat counters between two readings;
// open() takes the first reading, so the first sample covers the time since
// open(). Disk and network are cumulative byte counters (exposed as
// Prometheus counters): disks are the block devices with a
// /sys/block/<name>/device link (physical, so stacked dm/md devices and
// partitions are not counted twice); interfaces are all but "lo".
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/text.h"
#include "telemetry/backends/backends.h"

namespace rooftop::telemetry {
namespace {

struct CpuTimes {
  double busy = 0, iowait = 0, total = 0;
};

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::ostringstream ss;
  if (f) ss << f.rdbuf();
  return ss.str();
}

// "cpu" and "cpuN" lines of /proc/stat; index 0 is the total.
std::vector<CpuTimes> parse_stat(const std::string& text) {
  std::vector<CpuTimes> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!starts_with(line, "cpu")) break;
    std::istringstream ls(line);
    std::string label;
    ls >> label;
    double v[8] = {};
    for (double& x : v) ls >> x;  // user nice system idle iowait irq softirq steal
    CpuTimes t;
    for (double x : v) t.total += x;
    t.iowait = v[4];
    t.busy = t.total - v[3] - v[4];
    out.push_back(t);
  }
  return out;
}

std::optional<double> pct(double part, double whole) {
  if (whole <= 0) return std::nullopt;
  return 100.0 * part / whole;
}

class ProcBackend final : public Backend {
 public:
  ProcBackend(std::string root, std::string node_name) : root_(std::move(root)), node_name_(std::move(node_name)) {
    if (root_.empty() || root_.back() != '/') root_ += '/';
  }
  std::string name() const override { return "proc"; }

  Result<std::vector<DeviceInfo>> open() override {
    prev_ = parse_stat(read_file(root_ + "proc/stat"));
    if (prev_.empty()) return make_error(Errc::not_found, "no CPU lines in " + root_ + "proc/stat");
    host_ = node_name_.empty() ? trim(read_file(root_ + "proc/sys/kernel/hostname")) : node_name_;
    if (host_.empty()) {
      char buf[256] = {};
      if (gethostname(buf, sizeof buf - 1) == 0) host_ = buf;
    }
    return std::vector<DeviceInfo>{};
  }

  DeviceSample sample(int) override { return {}; }

  std::optional<HostSample> sample_host() override {
    HostSample h;
    h.host = host_;
    const std::vector<CpuTimes> now = parse_stat(read_file(root_ + "proc/stat"));
    if (!now.empty() && now.size() == prev_.size()) {
      for (std::size_t i = 0; i < now.size(); ++i) {
        const double dt = now[i].total - prev_[i].total;
        auto busy = pct(now[i].busy - prev_[i].busy, dt);
        if (i == 0) {
          h.cpu_busy_pct = busy;
          h.cpu_iowait_pct = pct(now[i].iowait - prev_[i].iowait, dt);
        } else {
          h.core_busy_pct.push_back(busy.value_or(0));
        }
      }
    }
    if (!now.empty()) prev_ = now;
    read_meminfo(h);
    read_loadavg(h);
    read_diskstats(h);
    read_netdev(h);
    return h;
  }

 private:
  void read_meminfo(HostSample& h) const {
    std::istringstream in(read_file(root_ + "proc/meminfo"));
    std::string key, unit;
    double kib = 0;
    while (in >> key >> kib) {
      std::getline(in, unit);
      if (key == "MemTotal:") h.mem_total_bytes = kib * 1024;
      if (key == "MemAvailable:") h.mem_available_bytes = kib * 1024;
    }
  }

  void read_loadavg(HostSample& h) const {
    std::istringstream in(read_file(root_ + "proc/loadavg"));
    double l1, l5, l15;
    if (in >> l1 >> l5 >> l15) {
      h.load1 = l1;
      h.load5 = l5;
      h.load15 = l15;
    }
  }

  bool physical_disk(const std::string& dev) const {
    std::error_code ec;
    const std::string sys = root_ + "sys/block";
    if (std::filesystem::is_directory(sys, ec)) return std::filesystem::exists(sys + "/" + dev + "/device", ec);
    return !starts_with(dev, "loop") && !starts_with(dev, "ram") && !starts_with(dev, "dm-") &&
           !starts_with(dev, "md") && !starts_with(dev, "zram");
  }

  void read_diskstats(HostSample& h) const {
    std::istringstream in(read_file(root_ + "proc/diskstats"));
    std::string line;
    double read = 0, written = 0;
    bool any = false;
    while (std::getline(in, line)) {
      std::istringstream ls(line);
      std::string major, minor, dev;
      double f[7] = {};  // reads merged sectors_read ms writes merged sectors_written
      if (!(ls >> major >> minor >> dev)) continue;
      for (double& x : f) ls >> x;
      if (!ls || !physical_disk(dev)) continue;
      read += f[2] * 512;  // the kernel counts 512-byte sectors whatever the device
      written += f[6] * 512;
      any = true;
    }
    if (any) {
      h.disk_read_bytes_total = read;
      h.disk_written_bytes_total = written;
    }
  }

  void read_netdev(HostSample& h) const {
    std::istringstream in(read_file(root_ + "proc/net/dev"));
    std::string line;
    double rx = 0, tx = 0;
    bool any = false;
    while (std::getline(in, line)) {
      const auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      const std::string iface = trim(line.substr(0, colon));
      std::istringstream ls(line.substr(colon + 1));
      double f[9] = {};  // rx: bytes packets errs drop fifo frame compressed multicast; tx: bytes
      for (double& x : f) ls >> x;
      if (!ls || iface == "lo") continue;
      rx += f[0];
      tx += f[8];
      any = true;
    }
    if (any) {
      h.net_rx_bytes_total = rx;
      h.net_tx_bytes_total = tx;
    }
  }

  std::string root_;
  std::string node_name_;  // from NODE_NAME or BackendOptions; overrides the kernel's host name
  std::string host_;
  std::vector<CpuTimes> prev_;
};

}  // namespace

std::unique_ptr<Backend> make_proc_backend(const std::string& root, const std::string& node_name) {
  return std::make_unique<ProcBackend>(root, node_name);
}

}  // namespace rooftop::telemetry
