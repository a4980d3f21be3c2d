#include "analyze/rightsize.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "core/text.h"

namespace rooftop::analyze {

namespace {

std::set<std::string> tokens(const std::string& s) {
  std::set<std::string> out;
  std::string cur;
  for (char ch : to_lower(s)) {
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

// The dense peak the observed load is compared on: bf16, else fp16, else fp32.
std::optional<double> reference_peak(const catalog::Accelerator& a) {
  for (Precision p : {Precision::bf16, Precision::fp16, Precision::fp32}) {
    if (a.supports(p)) return a.peak(p).value;
  }
  return std::nullopt;
}

}  // namespace

const catalog::Accelerator* match_model(const catalog::Catalog& cat, const std::string& model_name) {
  std::set<std::string> want = tokens(model_name);
  if (want.empty()) return nullptr;
  const catalog::Accelerator* best = nullptr;
  double best_score = 0;
  for (const catalog::Accelerator& a : cat.accelerators) {
    std::set<std::string> have = tokens(a.id + " " + a.name);
    for (const std::string& al : a.aliases) {
      for (const std::string& t : tokens(al)) have.insert(t);
    }
    std::size_t common = 0;
    for (const std::string& t : want) common += have.count(t);
    // Every model token should be explained; prefer entries with fewer extra tokens.
    double score = static_cast<double>(common) - 0.01 * static_cast<double>(have.size());
    bool has_number = false;  // the model number (a100, h100, t4...) must match
    for (const std::string& t : want) {
      if (std::any_of(t.begin(), t.end(), ::isdigit) && have.count(t)) has_number = true;
    }
    if (has_number && score > best_score) {
      best_score = score;
      best = &a;
    }
  }
  return best;
}

void add_rightsizing(std::vector<Finding>& findings, const Profiles& p, const catalog::Catalog& cat,
                     const Thresholds& t) {
  for (Finding& f : findings) {
    const DeviceProfile* d = nullptr;
    for (const DeviceProfile& dp : p.devices) {
      if (dp.key.id() == f.device) d = &dp;
    }
    if (!d) continue;
    const catalog::Accelerator* a = match_model(cat, d->key.model);
    if (!a) continue;
    f.evidence.emplace_back("catalog_match", 1);
    std::optional<double> price = a->price.cloud_usd_per_hour.value;
    if (price) f.wasted_usd = f.wasted_device_hours * *price;
    if (f.kind != "underused") continue;
    std::optional<double> peak = reference_peak(*a);
    if (!peak) continue;
    double needed = d->util_percentile(0.95) / t.target_util_pct * *peak;
    std::vector<const catalog::Accelerator*> fits;
    for (const catalog::Accelerator& c : cat.accelerators) {
      if (&c == a || c.form_factor != a->form_factor) continue;
      std::optional<double> cp = reference_peak(c);
      if (!cp || *cp < needed) continue;
      if (c.memory_bytes.known() && a->memory_bytes.known() && d->buckets.size()) {
        float peak_frac = 0;
        for (const Bucket& b : d->buckets) {
          if (!std::isnan(b.mem_frac_max)) peak_frac = std::max(peak_frac, b.mem_frac_max);
        }
        if (*c.memory_bytes.value < peak_frac * *a->memory_bytes.value) continue;
      }
      if (price && (!c.price.cloud_usd_per_hour.known() || *c.price.cloud_usd_per_hour.value >= *price)) continue;
      // Without a price to compare, only a smaller part keeps the advice "smaller or cheaper".
      if (!price && *cp >= *peak) continue;
      fits.push_back(&c);
    }
    // Cheapest first; unpriced, the least capacity that carries the load first.
    std::sort(fits.begin(), fits.end(), [](const catalog::Accelerator* x, const catalog::Accelerator* y) {
      double px = x->price.cloud_usd_per_hour.or_else(1e18), py = y->price.cloud_usd_per_hour.or_else(1e18);
      if (px != py) return px < py;
      double cx = reference_peak(*x).value_or(0), cy = reference_peak(*y).value_or(0);
      return cx != cy ? cx < cy : x->id < y->id;
    });
    std::string alt;
    for (std::size_t i = 0; i < fits.size() && i < 3; ++i) {
      const catalog::Accelerator& c = *fits[i];
      alt += (i ? ", " : "") + c.id;
      if (c.price.cloud_usd_per_hour.known()) alt += " (" + usd_per_hour(*c.price.cloud_usd_per_hour.value) + ")";
    }
    f.recommendation += fmt::format(" As {} it needs {} of dense compute at {:.0f} % utilisation.", a->id,
                                    si(needed, "FLOP/s"), t.target_util_pct);
    if (!alt.empty()) {
      f.recommendation += std::string(price ? " Catalog parts that carry it for less per hour: "
                                            : " Smaller catalog parts that carry it: ") + alt + ".";
    } else if (!price) {
      f.recommendation += " The catalog has no hourly price for " + a->id + ", so cheaper parts cannot be ranked.";
    }
  }
}

}  // namespace rooftop::analyze
