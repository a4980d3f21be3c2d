// A bench Report as a catalog overlay entry (docs/catalog.md schema), so
// `rooftop predict --catalog FILE --accelerator local-<host>` compares the
// machine you have with what you might buy. Peaks are the medians of the
// measured peak kernels (the best unit per precision), memory bandwidth the
// best DRAM level figure at full thread count; efficiency is 1.0 because the
// values are measured, not quoted.
#pragma once

#include <optional>
#include <string>

#include "bench/bench.h"

namespace rooftop::bench {

// "local-" + the hostname lowercased, other characters mapped to '-'.
std::string default_profile_id(const std::string& hostname);

// The best median peak per precision (FLOP/s), peak kernels only.
std::optional<double> best_peak(const Report& r, Precision p);
// The best DRAM bandwidth at the largest thread count measured.
std::optional<double> best_dram(const Report& r);

// The YAML text. `id` must be a valid catalog id (checked by the caller).
std::string profile_yaml(const Report& r, const std::string& id);

}  // namespace rooftop::bench
