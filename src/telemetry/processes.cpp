// Process details for the per-process view: command, user and container of
// each process NVML (or another backend) reports on a device, read from
// procfs. PROC_ROOT is the host's root as the monitor sees it ("/host" in
// the DaemonSet, where NVML's host pids are valid), so users are looked up
// in PROC_ROOT/etc/passwd when it is there (no NSS), else shown as numbers.
#include <cctype>
#include <fstream>
#include <map>
#include <sstream>

#include "core/text.h"
#include "telemetry/telemetry.h"

namespace rooftop::telemetry {
namespace {

std::string first_line(const std::string& path) {
  std::ifstream f(path);
  std::string line;
  std::getline(f, line);
  return line;
}

// The real uid from /proc/PID/status ("Uid:\treal\teffective\t...").
std::string uid_of(const std::string& status_path) {
  std::ifstream f(status_path);
  for (std::string line; std::getline(f, line);) {
    if (!starts_with(line, "Uid:")) continue;
    std::istringstream in(line.substr(4));
    std::string uid;
    in >> uid;
    return uid;
  }
  return "";
}

std::map<std::string, std::string> users(const std::string& passwd_path) {
  std::map<std::string, std::string> out;
  std::ifstream f(passwd_path);
  for (std::string line; std::getline(f, line);) {
    const std::vector<std::string> p = split(line, ':');
    if (p.size() >= 3 && !p[0].empty()) out.emplace(p[2], p[0]);
  }
  return out;
}

bool is_hex(std::string_view s) {
  for (char c : s) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return !s.empty();
}

// The container id in a cgroup path: the 64-hex-digit component, bare
// (cgroupfs) or wrapped by the runtime ("docker-ID.scope",
// "cri-containerd-ID.scope", "crio-ID.scope"); first 12 digits, as
// `docker ps` and `crictl ps` show it.
std::string container_of(const std::string& cgroup_path) {
  std::ifstream f(cgroup_path);
  for (std::string line; std::getline(f, line);) {
    for (const std::string& part : split(line, '/')) {
      std::string_view id = part;
      if (const auto dash = id.rfind('-'); dash != std::string_view::npos) id = id.substr(dash + 1);
      if (id.size() > 6 && id.substr(id.size() - 6) == ".scope") id = id.substr(0, id.size() - 6);
      if (id.size() == 64 && is_hex(id)) return std::string(id.substr(0, 12));
    }
  }
  return "";
}

}  // namespace

void describe_processes(Snapshot& snap, const std::string& proc_root) {
  const std::string root = proc_root.empty() || proc_root == "/" ? "" : proc_root;
  std::map<std::string, std::string> names;
  bool names_read = false;
  for (DeviceReading& r : snap.devices) {
    for (ProcessSample& p : r.sample.processes) {
      const std::string dir = root + "/proc/" + std::to_string(p.pid);
      p.command = trim(first_line(dir + "/comm"));
      if (p.command.empty()) continue;  // gone, or in a pid namespace we cannot see
      if (!names_read) {
        names = users(root + "/etc/passwd");
        names_read = true;
      }
      const std::string uid = uid_of(dir + "/status");
      const auto it = names.find(uid);
      p.user = it != names.end() ? it->second : uid;
      p.container = container_of(dir + "/cgroup");
    }
  }
}

}  // namespace rooftop::telemetry
