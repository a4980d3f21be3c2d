// Right-sizing is advise (docs/analyze.md, "Right-sizing"): an under-used
// device's observed load becomes an advise::Scenario (the user's scenario
// for the workload it runs, its objective replaced by the measured demand:
// p95 utilisation / target utilisation x the current part's capacity on that
// workload; the current part as baseline; the scenario's constraints and
// economics kept) and advise::advise() ranks what would carry it, on all
// five criteria. Without a scenario, findings get their cost at the
// catalog's hourly price only.
#pragma once

#include <string>
#include <vector>

#include "advise/advise.h"
#include "analyze/analyze.h"
#include "catalog/catalog.h"

namespace rooftop::analyze {

// The scenario advise ranks for a load of `demand` on `count` x `accelerator`.
advise::Scenario rightsizing_scenario(const advise::Scenario& base, const std::string& accelerator, int count,
                                      double demand);

struct RightsizeInputs {
  const advise::Scenario* scenario = nullptr;  // a serving (infer) scenario; null = price only
  const workload::Workload* workload = nullptr;
  const model::Calibration* calibration = nullptr;  // the fitted stack factors advise predicts with
};

// Fills wasted_usd where the device's hourly price is known, and for
// under-used findings on a catalog part, Finding::rightsizing and the
// recommendation's alternatives. Errors: the scenario is not a serving one.
Result<void> add_rightsizing(std::vector<Finding>& findings, const Profiles& p, const catalog::Catalog& cat,
                             const Thresholds& t, const RightsizeInputs& in = {});

}  // namespace rooftop::analyze
