// Error bands from validation rows and the range a prediction carries
// (docs/model.md#ranges).
#include "model/ranges.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include "core/text.h"
#include "workload/workload.h"

namespace rooftop::model {

std::vector<ErrorBand> error_bands(const Validation& v) {
  std::map<std::tuple<std::string, std::string, std::string>, ErrorBand> by;
  for (const RowResult& r : v.rows) {
    if (!r.predicted || r.task.empty() || *r.predicted <= 0 || r.measured <= 0) continue;
    const double ratio = r.time_metric ? *r.predicted / r.measured : r.measured / *r.predicted;
    ErrorBand& b = by[{r.task, r.family, r.vendor}];
    if (b.rows == 0) b.task = r.task, b.family = r.family, b.vendor = r.vendor, b.ratio_low = b.ratio_high = ratio;
    ++b.rows;
    b.ratio_low = std::min(b.ratio_low, ratio);
    b.ratio_high = std::max(b.ratio_high, ratio);
    if (std::find(b.precisions.begin(), b.precisions.end(), r.precision) == b.precisions.end())
      b.precisions.push_back(r.precision);
  }
  std::vector<ErrorBand> out;
  for (auto& [key, b] : by) {
    std::sort(b.precisions.begin(), b.precisions.end());
    out.push_back(std::move(b));
  }
  return out;
}

namespace {
std::string ratio_text(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", r);
  return buf;
}
}  // namespace

std::string error_bands_csv(const std::vector<ErrorBand>& bands) {
  std::string out = "task,family,vendor,rows,ratio_low,ratio_high,precisions\n";
  for (const ErrorBand& b : bands) {
    std::string p;
    for (const std::string& x : b.precisions) p += (p.empty() ? "" : " ") + x;
    out += b.task + "," + b.family + "," + b.vendor + "," + std::to_string(b.rows) + "," + ratio_text(b.ratio_low) +
           "," + ratio_text(b.ratio_high) + "," + p + "\n";
  }
  return out;
}

Result<std::vector<ErrorBand>> parse_error_bands(std::string_view text, const std::string& name) {
  std::vector<ErrorBand> out;
  int line = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string row(trim(text.substr(start, end - start)));
    start = end + 1;
    ++line;
    if (line == 1 || row.empty() || row[0] == '#') continue;
    std::vector<std::string> f;
    std::size_t a = 0;
    for (std::size_t c = row.find(','); ; c = row.find(',', a)) {
      f.push_back(row.substr(a, c == std::string::npos ? std::string::npos : c - a));
      if (c == std::string::npos) break;
      a = c + 1;
    }
    const std::string where = name + ":" + std::to_string(line);
    if (f.size() != 7) return make_error(Errc::invalid_input, "expected 7 fields, got " + std::to_string(f.size()), where);
    ErrorBand b;
    b.task = f[0], b.family = f[1], b.vendor = f[2];
    std::optional<long long> n = parse_int(f[3]);
    std::optional<double> lo = parse_double(f[4]), hi = parse_double(f[5]);
    if (!n || *n < 1 || !lo || !hi || !(*lo > 0) || !(*hi >= *lo))
      return make_error(Errc::invalid_input, "rows must be >= 1 and 0 < ratio_low <= ratio_high", where);
    b.rows = static_cast<int>(*n), b.ratio_low = *lo, b.ratio_high = *hi;
    std::size_t p = 0;
    while (p < f[6].size()) {
      std::size_t q = f[6].find(' ', p);
      if (q == std::string::npos) q = f[6].size();
      if (q > p) b.precisions.push_back(f[6].substr(p, q - p));
      p = q + 1;
    }
    out.push_back(std::move(b));
  }
  return out;
}

Sureness sureness(const std::vector<ErrorBand>& bands, std::string_view task, std::string_view family,
                  std::string_view vendor, std::string_view precision, double throughput, double latency_s) {
  Sureness s;
  const auto known = workload::parse_family(family);
  // "training rows of nvidia CNN workloads" ("row" for one).
  auto rows_of = [&](bool one) {
    return std::string(task == "train" ? "training" : "inference") + (one ? " row of " : " rows of ") +
           std::string(vendor) + " " + std::string(known ? workload::label(*known) : family) + " workloads";
  };
  const std::string what = rows_of(false);
  auto it = std::find_if(bands.begin(), bands.end(), [&](const ErrorBand& b) {
    return b.task == task && b.family == family && b.vendor == vendor;
  });
  if (it == bands.end()) {
    s.note = "no published " + what + " check this combination";
    return s;
  }
  const ErrorBand& b = *it;
  const double lo = std::min(1.0, b.ratio_low), hi = std::max(1.0, b.ratio_high);
  char span[64];
  std::snprintf(span, sizeof span, "%.2f-%.2f", b.ratio_low, b.ratio_high);
  const std::string basis =
      std::to_string(b.rows) + " published " + rows_of(b.rows == 1) + " (measured / predicted " + span + ")";
  if (throughput > 0) s.throughput = Range{throughput * lo, throughput * hi, basis};
  if (latency_s > 0) s.latency_s = Range{latency_s / hi, latency_s / lo, basis};
  s.unvalidated = std::find(b.precisions.begin(), b.precisions.end(), std::string(precision)) == b.precisions.end();
  // A row's precision is the one it was checked in: the one it names, else
  // the task's default (a training row naming none is checked in bf16 even
  // if the submission ran fp8), so say what was checked, not what ran.
  if (s.unvalidated) s.note = "none of the published " + what + " was checked in " + std::string(precision);
  return s;
}

}  // namespace rooftop::model
