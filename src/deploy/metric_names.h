// The series names `rooftop monitor` exports, in its two naming modes
// (dcgm-exporter compatible, or rooftop_* in base units), so the scrape
// config, alert rules and dashboard always match what is exported.
#pragma once

#include <string>
#include <vector>

namespace rooftop::deploy {

struct MetricNames {
  std::string gpu_util;         // utilisation
  double util_full_scale;       // value that means 100 % (100 for DCGM percent, 1 for ratios)
  std::string mem_copy_util;
  std::string fb_used;
  std::string fb_free;
  std::string temp;
  std::string power;
  std::string sm_clock;
  std::string throttle_reasons; // bitmask of NVML clocks-event reasons
  std::string xid;
  std::string ecc_dbe;          // volatile uncorrected (double-bit) ECC errors
  std::string remapped_rows_uncorrectable;
  std::string row_remap_failure;
  std::string host_label;       // label carrying the node name
};

const MetricNames& metric_names(bool rooftop_names);

// Recording rules `rooftop deploy monitor` writes (recording-rules.yml) and
// `rooftop analyze --prometheus` reads when the server has them: per-device
// signals a fleet-wide window aggregate needs precomputed, identical for
// both name sets.
inline constexpr const char* kMemoryUsedRatioRule = "rooftop:gpu_memory_used:ratio";    // used / (used + free)
inline constexpr const char* kClocksHeldDownRule = "rooftop:gpu_clocks_held_down:bool";  // 1 = a throttle reason is set

struct RecordingRule {
  std::string record;
  std::string expr;
};
std::vector<RecordingRule> recording_rules(bool rooftop_names);

}  // namespace rooftop::deploy
