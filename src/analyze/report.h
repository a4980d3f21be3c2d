// The optimisation report: findings ranked by impact, each with its
// evidence, recommendation and the utilisation curve that shows it.
#pragma once

#include <string>
#include <vector>

#include "analyze/analyze.h"
#include "report/report.h"

namespace rooftop::analyze {

struct ReportContext {
  std::string source;  // "store history.db", "prometheus http://..."
  std::size_t max_charts = 12;
};

report::Document build_report(const Profiles& p, const std::vector<Finding>& findings, const Thresholds& t,
                              const ReportContext& ctx);

// One line per workload (namespace, pod) and kind, for findings whose
// series name a pod: "namespace vision, pod train-7f9: 4 x NVIDIA H100 80GB
// HBM3 idle over 72.0 h, 280.8 device-hours wasted (about $X)". Largest
// waste first; empty when no finding names a pod.
std::vector<std::string> workload_summary(const Profiles& p, const std::vector<Finding>& findings);

// The chart for one finding (utilisation and the signal that matters, window shaded).
std::string finding_chart(const Profiles& p, const Finding& f);

}  // namespace rooftop::analyze
