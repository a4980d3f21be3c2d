// Synthetic utilisation traces with known, labelled problems: for trying
// the tool without hardware, and for measuring the detectors' precision and
// recall (`rooftop trace synth`). Deterministic for a given seed.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "core/result.h"
#include "telemetry/telemetry.h"

namespace rooftop::analyze {

struct SynthOptions {
  std::string kind = "mix";   // healthy, idle, underused, io-bound, throttling, straggler,
                              // memory-pressure, memory-headroom, mix
  int devices = 0;            // 0 = the kind's default (4; 10 for mix)
  double duration_s = 3600;
  double step_s = 1;
  std::uint64_t seed = 1;
  std::string host;           // all devices on this host ("" = one host per device)
  std::string model = "NVIDIA A100-SXM4-80GB";
  double fb_total_bytes = 80.0 * 1073741824.0;  // A100 80GB
  double power_limit_w = 400;                   // A100 SXM4 TDP
  double sm_clock_max_mhz = 1410;               // A100 boost clock
};

struct Planted {
  std::string kind;
  std::string device;  // DeviceKey::id(): "host/gpuN"
};

struct SynthResult {
  telemetry::Trace trace;
  std::vector<Planted> planted;
};

std::vector<std::string> synth_kinds();
Result<SynthResult> synthesize(const SynthOptions& o);

// The trace as store snapshots (one per host per timestamp) starting at
// Unix time `start_s`, for writing straight into a monitor store.
std::vector<telemetry::Snapshot> to_snapshots(const telemetry::Trace& trace, const SynthOptions& o, double start_s);

}  // namespace rooftop::analyze

namespace rooftop::analyze {

// A generated fleet (`rooftop trace synth fleet --openmetrics FILE`):
// synth.devices devices on hosts of gpus_per_host, as OpenMetrics text with
// timestamps from start_s. `part` of `parts` writes only that share of the
// time steps (a 1,000-device week is too large for one file); the planted
// list is always the whole fleet's.
struct FleetOptions {
  SynthOptions synth;
  int gpus_per_host = 8;
  int part = 0, parts = 1;
  double start_s = 0;
};
Result<std::vector<Planted>> write_fleet_openmetrics(const FleetOptions& f, std::ostream& out);

}  // namespace rooftop::analyze
