// Which core clock to believe. The dependent-add probe (cpu_info.h) is the
// only way to see the running clock in a guest without a PMU, but a probe
// can read wrong (an add the core folds at rename, a TSC that is not the
// guest's time base), so its figure is cross-checked against what the system
// reports before the theoretical peak is built on it. This file is the pure
// decision: figures in, verdict out, no measuring (unit-tested with the
// recorded figures of a VM whose probe read 8.6-11.8 GHz).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace rooftop::bench {

// No CPU has run above this (overclocking records aside); a figure beyond
// it is a broken measurement, not a fast machine.
inline constexpr double kMaxPlausibleClockHz = 6.5e9;
// A probe may read above every reported frequency (turbo above the base or
// the TSC a guest sees), but not by more than this factor.
inline constexpr double kMaxClockOverReported = 1.5;
// A loaded core runs at its base clock or above; a probe reading below this
// fraction of the reported clock measured a share of a contended CPU (other
// tenants, steal). The figure is kept, since the kernels saw the same share,
// with a note saying so.
inline constexpr double kSharedCpuFraction = 0.5;

struct ClockEvidence {
  std::vector<double> probe_hz;            // one figure per probe try (each >= 100 ms per pinned core)
  std::optional<double> cpufreq_max_hz;    // sysfs cpufreq cpuinfo_max_freq, highest over CPUs
  std::optional<double> cpuinfo_hz;        // /proc/cpuinfo "cpu MHz", highest over CPUs (the TSC in a VM)
  std::optional<double> model_name_hz;     // "@ 2.30GHz" in the model name (the nominal/base clock)
};

struct ClockVerdict {
  std::optional<double> measured_hz;  // the probe's figure when credible; nullopt = unknown
  std::optional<double> theory_hz;    // the clock the theoretical peak uses; nullopt = no credible clock
  std::string theory_source;          // "measured", "cpufreq max", "/proc/cpuinfo", "model name"
  std::string note;                   // why the probe's figure was not used, or a caveat on it ("" = none)
};

// The probe's figure is its best try (a preempted try only reads low). It is
// rejected when above kMaxPlausibleClockHz or above kMaxClockOverReported x
// the highest credible reported frequency; theory then uses that highest
// credible reported frequency (a reported figure above the plausible limit is
// not credible either).
ClockVerdict decide_clock(const ClockEvidence& e);

// The FMA kernels are a second, independent clock reading: their rate over
// (cores x FLOP per cycle) is a clock the cores must at least have run at
// (AVX-512 code may run a little below the scalar clock the probe sees).
// After they ran:
// - a probe figure that decide_clock rejected only for exceeding
//   kMaxClockOverReported x the reported clock (a guest that reports its base
//   clock while it turbos) is believed when the kernels ran at between
//   kCorroborateLow and kCorroborateHigh of it;
// - otherwise theory never uses a clock below the one the kernels prove.
inline constexpr double kCorroborateLow = 0.8;
inline constexpr double kCorroborateHigh = 1.05;
ClockVerdict corroborate_clock(const ClockVerdict& v, const ClockEvidence& e, std::optional<double> kernel_hz);

// "Intel(R) Xeon(R) Gold 6140 CPU @ 2.30GHz" -> 2.3e9; "... @ 2300MHz" too;
// nullopt when the name carries no clock (most AMD parts, many guests).
std::optional<double> clock_from_model_name(const std::string& model_name);

// "clock: 2.93 GHz measured, 2.10 GHz nominal" or "clock: unknown (why)";
// the text after "clock: " in bench's header line.
std::string describe_clock(const ClockVerdict& v, const std::optional<double>& nominal_hz);

}  // namespace rooftop::bench
