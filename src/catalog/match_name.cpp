// Catalog::match_reported_name: from the name a driver or exporter reports
// to a catalog entry (contract in catalog.h).
#include <algorithm>
#include <cctype>
#include <set>
#include <string>

#include "catalog/catalog.h"
#include "core/text.h"

namespace rooftop::catalog {

namespace {

// Lower-case alphanumeric tokens, less the words every vendor's names carry.
std::set<std::string> name_tokens(std::string_view s) {
  std::set<std::string> out;
  std::string cur;
  for (char ch : to_lower(std::string(s))) {
    if (std::isalnum(static_cast<unsigned char>(ch))) {
      cur += ch;
    } else if (!cur.empty()) {
      out.insert(cur);
      cur.clear();
    }
  }
  if (!cur.empty()) out.insert(cur);
  for (const char* noise : {"nvidia", "amd", "tesla", "instinct", "gpu", "hbm3", "hbm2e", "hbm3e"}) out.erase(noise);
  return out;
}

}  // namespace

const Accelerator* Catalog::match_reported_name(std::string_view reported) const {
  const std::set<std::string> want = name_tokens(reported);
  if (want.empty()) return nullptr;
  const Accelerator* best = nullptr;
  double best_score = 0;
  for (const Accelerator& a : accelerators) {
    std::set<std::string> have = name_tokens(a.id + " " + a.name);
    bool spelt = false;  // an alias that spells the whole reported name ("H100 80GB HBM3" = h100-80gb)
    for (const std::string& al : a.aliases) {
      std::set<std::string> at = name_tokens(al);
      spelt = spelt || at == want;
      have.insert(at.begin(), at.end());
    }
    std::size_t common = 0;
    bool has_number = false;  // the model number (a100, h100, t4...) must match
    for (const std::string& t : want) {
      common += have.count(t);
      if (std::any_of(t.begin(), t.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) && have.count(t))
        has_number = true;
    }
    // Every reported token should be explained; prefer entries with fewer extra tokens.
    const double score = static_cast<double>(common) + (spelt ? 0.5 : 0) - 0.01 * static_cast<double>(have.size());
    if (has_number && score > best_score) {
      best_score = score;
      best = &a;
    }
  }
  return best;
}

}  // namespace rooftop::catalog
