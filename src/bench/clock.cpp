// The clock decision (pure): see clock.h.
#include "bench/clock.h"

#include <cstdio>
#include <utility>

#include "core/text.h"

namespace rooftop::bench {

namespace {
std::string ghz(double hz) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GHz", hz / 1e9);
  return buf;
}
}  // namespace

ClockVerdict decide_clock(const ClockEvidence& e) {
  ClockVerdict v;
  // The highest credible reported frequency, and where it comes from.
  std::optional<double> reported;
  std::string reported_source;
  for (const auto& [hz, source] : {std::pair{e.cpufreq_max_hz, "cpufreq max"}, std::pair{e.cpuinfo_hz, "/proc/cpuinfo"},
                                   std::pair{e.model_name_hz, "model name"}}) {
    if (!hz || !(*hz > 0) || *hz > kMaxPlausibleClockHz) continue;
    if (!reported || *hz > *reported) {
      reported = *hz;
      reported_source = source;
    }
  }
  std::optional<double> probe;
  for (double hz : e.probe_hz)
    if (hz > 0 && (!probe || hz > *probe)) probe = hz;

  if (!probe) {
    v.note = "the dependent-add probe did not run on this CPU";
  } else if (*probe > kMaxPlausibleClockHz) {
    v.note = "the dependent-add probe read " + ghz(*probe) + ", above the " + ghz(kMaxPlausibleClockHz) +
             " no CPU exceeds";
  } else if (reported && *probe > kMaxClockOverReported * *reported) {
    char factor[16];
    std::snprintf(factor, sizeof factor, "%g", kMaxClockOverReported);
    v.note = "the dependent-add probe read " + ghz(*probe) + ", more than " + factor + "x the " + ghz(*reported) +
             " " + reported_source + " reports";
  } else {
    v.measured_hz = probe;
    v.theory_hz = probe;
    v.theory_source = "measured";
    if (reported && *probe < kSharedCpuFraction * *reported)
      v.note = "below half the " + ghz(*reported) + " " + reported_source +
               " reports: the CPUs were shared while measuring, so rates and theory both reflect that share";
    return v;
  }
  if (reported) {
    v.theory_hz = reported;
    v.theory_source = reported_source;
  }
  return v;
}

ClockVerdict corroborate_clock(const ClockVerdict& v, const ClockEvidence& e, std::optional<double> kernel_hz) {
  if (!kernel_hz || !(*kernel_hz > 0) || *kernel_hz > kMaxPlausibleClockHz || v.measured_hz) return v;
  std::optional<double> probe;
  for (double hz : e.probe_hz)
    if (hz > 0 && (!probe || hz > *probe)) probe = hz;
  ClockVerdict out = v;
  if (probe && *probe <= kMaxPlausibleClockHz && *kernel_hz >= kCorroborateLow * *probe &&
      *kernel_hz <= kCorroborateHigh * *probe) {
    out.measured_hz = probe;
    out.theory_hz = probe;
    out.theory_source = "measured";
    out.note = "above every clock the system reports, confirmed by the FMA kernels, which ran at " + ghz(*kernel_hz);
    return out;
  }
  if (!v.theory_hz || *kernel_hz > *v.theory_hz) {
    out.theory_hz = kernel_hz;
    out.theory_source = "FMA kernels";
    out.note = v.note + (v.note.empty() ? "" : "; ") + "theory at the " + ghz(*kernel_hz) +
               " the FMA kernels ran at, above every reported clock";
  }
  return out;
}

std::optional<double> clock_from_model_name(const std::string& model_name) {
  auto at = model_name.rfind('@');
  if (at == std::string::npos) return std::nullopt;
  std::string rest = to_lower(trim(model_name.substr(at + 1)));
  double mult = 0;
  std::string number;
  if (rest.ends_with("ghz")) {
    mult = 1e9;
    number = rest.substr(0, rest.size() - 3);
  } else if (rest.ends_with("mhz")) {
    mult = 1e6;
    number = rest.substr(0, rest.size() - 3);
  } else {
    return std::nullopt;
  }
  auto value = parse_double(trim(number));
  if (!value || !(*value > 0)) return std::nullopt;
  return *value * mult;
}

std::string describe_clock(const ClockVerdict& v, const std::optional<double>& nominal_hz) {
  std::string nominal = nominal_hz ? ghz(*nominal_hz) + " nominal" : "nominal ?";
  if (v.measured_hz) return ghz(*v.measured_hz) + " measured" + (v.note.empty() ? "" : " (" + v.note + ")") + ", " + nominal;
  std::string theory = v.theory_hz ? "theory at " + ghz(*v.theory_hz) + " (" + v.theory_source + ")"
                                   : "no theoretical peak";
  return "unknown (" + v.note + "); " + theory + ", " + nominal;
}

}  // namespace rooftop::bench
