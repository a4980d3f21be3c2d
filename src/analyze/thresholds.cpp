// Named access to the detector thresholds, for --threshold NAME=VALUE.
#include "analyze/analyze.h"
#include "core/text.h"

namespace rooftop::analyze {

namespace {
struct Field {
  const char* name;
  double Thresholds::*member;
};
constexpr Field kFields[] = {
    {"idle_util_pct", &Thresholds::idle_util_pct},
    {"underused_p95_pct", &Thresholds::underused_p95_pct},
    {"target_util_pct", &Thresholds::target_util_pct},
    {"io_cpu_pct", &Thresholds::io_cpu_pct},
    {"io_iowait_pct", &Thresholds::io_iowait_pct},
    {"io_util_pct", &Thresholds::io_util_pct},
    {"io_min_fraction", &Thresholds::io_min_fraction},
    {"mem_pressure_frac", &Thresholds::mem_pressure_frac},
    {"mem_pressure_min_fraction", &Thresholds::mem_pressure_min_fraction},
    {"mem_headroom_frac", &Thresholds::mem_headroom_frac},
    {"mem_headroom_min_util_pct", &Thresholds::mem_headroom_min_util_pct},
    {"throttle_min_fraction", &Thresholds::throttle_min_fraction},
    {"throttle_clock_ratio", &Thresholds::throttle_clock_ratio},
    {"throttle_temp_c", &Thresholds::throttle_temp_c},
    {"throttle_power_frac", &Thresholds::throttle_power_frac},
    {"straggler_gap_pct", &Thresholds::straggler_gap_pct},
    {"straggler_min_fraction", &Thresholds::straggler_min_fraction},
    {"min_window_s", &Thresholds::min_window_s},
};
}  // namespace

Result<void> Thresholds::set(const std::string& assignment) {
  std::size_t eq = assignment.find('=');
  if (eq == std::string::npos)
    return make_error(Errc::invalid_input, "expected NAME=VALUE, got '" + assignment + "'", "--threshold");
  std::string name = trim(assignment.substr(0, eq));
  std::optional<double> v = parse_double(assignment.substr(eq + 1));
  std::vector<std::string> names;
  for (const Field& f : kFields) {
    names.emplace_back(f.name);
    if (name != f.name) continue;
    if (!v || *v < 0) return make_error(Errc::invalid_input, "'" + name + "' needs a non-negative number", "--threshold");
    this->*f.member = *v;
    return {};
  }
  return make_error(Errc::invalid_input, did_you_mean("threshold", name, names), "--threshold");
}

std::vector<std::pair<std::string, double>> Thresholds::list() const {
  std::vector<std::pair<std::string, double>> out;
  for (const Field& f : kFields) out.emplace_back(f.name, this->*f.member);
  return out;
}

}  // namespace rooftop::analyze
