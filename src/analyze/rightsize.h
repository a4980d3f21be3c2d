// Right-sizing advice for idle and under-used devices: which catalog entry
// the observed device is, what the observed load needs, and which catalog
// accelerators would carry it for less (docs/analyze.md).
#pragma once

#include <string>
#include <vector>

#include "analyze/analyze.h"
#include "catalog/catalog.h"

namespace rooftop::analyze {

// The catalog entry a reported model name ("NVIDIA A100-SXM4-80GB") is, by
// token overlap with ids, names and aliases; nullptr when none is close.
const catalog::Accelerator* match_model(const catalog::Catalog& cat, const std::string& model_name);

// Adds cost and cheaper-alternative advice to idle/underused findings, and
// fills wasted_usd where the device's hourly price is known.
void add_rightsizing(std::vector<Finding>& findings, const Profiles& p, const catalog::Catalog& cat,
                     const Thresholds& t);

}  // namespace rooftop::analyze
