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

std::vector<ErrorBand> error_bands(const std::vector<CalRow>& rows, const std::vector<double>& cv_ratio,
                                   double shrink) {
  using Key = std::tuple<std::string, std::string, std::string, std::string>;
  std::map<Key, std::vector<std::size_t>> by;
  std::map<std::string, std::vector<double>> corpus;   // per task
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!(cv_ratio[i] > 0) || rows[i].task.empty()) continue;
    by[{rows[i].task, rows[i].scenario, rows[i].family, rows[i].vendor}].push_back(i);
    corpus[rows[i].task].push_back(-std::log(cv_ratio[i]));
  }
  auto band = [&](const std::string& task, const std::string& scenario, const std::string& family,
                  const std::string& vendor, const std::vector<std::size_t>& members, bool whole) {
    ErrorBand b;
    b.task = task, b.scenario = scenario, b.family = family, b.vendor = vendor;
    b.rows = static_cast<int>(members.size());
    std::vector<double> own;
    for (std::size_t i : members) {
      own.push_back(-std::log(cv_ratio[i]));
      if (std::find(b.precisions.begin(), b.precisions.end(), rows[i].precision) == b.precisions.end())
        b.precisions.push_back(rows[i].precision);
    }
    std::sort(b.precisions.begin(), b.precisions.end());
    const auto [lo, hi] = shrunk_range(own, whole ? std::vector<double>{} : corpus[task], shrink);
    b.ratio_low = lo, b.ratio_high = hi;
    return b;
  };
  std::vector<ErrorBand> out;
  for (const auto& [key, members] : by)
    out.push_back(band(std::get<0>(key), std::get<1>(key), std::get<2>(key), std::get<3>(key), members, false));
  std::map<std::string, std::vector<std::size_t>> tasks;
  for (const auto& [key, members] : by) tasks[std::get<0>(key)].insert(tasks[std::get<0>(key)].end(), members.begin(), members.end());
  for (const auto& [task, members] : tasks) out.push_back(band(task, "*", "*", "*", members, true));
  std::sort(out.begin(), out.end(), [](const ErrorBand& a, const ErrorBand& b) {
    return std::tie(a.task, a.scenario, a.family, a.vendor) < std::tie(b.task, b.scenario, b.family, b.vendor);
  });
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
  std::string out = "task,scenario,family,vendor,rows,ratio_low,ratio_high,precisions\n";
  for (const ErrorBand& b : bands) {
    std::string p;
    for (const std::string& x : b.precisions) p += (p.empty() ? "" : " ") + x;
    out += b.task + "," + b.scenario + "," + b.family + "," + b.vendor + "," + std::to_string(b.rows) + "," + ratio_text(b.ratio_low) +
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
    if (f.size() != 8) return make_error(Errc::invalid_input, "expected 8 fields, got " + std::to_string(f.size()), where);
    ErrorBand b;
    b.task = f[0], b.scenario = f[1], b.family = f[2], b.vendor = f[3];
    std::optional<long long> n = parse_int(f[4]);
    std::optional<double> lo = parse_double(f[5]), hi = parse_double(f[6]);
    if (!n || *n < 1 || !lo || !hi || !(*lo > 0) || !(*hi >= *lo))
      return make_error(Errc::invalid_input, "rows must be >= 1 and 0 < ratio_low <= ratio_high", where);
    b.rows = static_cast<int>(*n), b.ratio_low = *lo, b.ratio_high = *hi;
    std::size_t p = 0;
    while (p < f[7].size()) {
      std::size_t q = f[7].find(' ', p);
      if (q == std::string::npos) q = f[7].size();
      if (q > p) b.precisions.push_back(f[7].substr(p, q - p));
      p = q + 1;
    }
    out.push_back(std::move(b));
  }
  return out;
}

Sureness sureness(const std::vector<ErrorBand>& bands, std::string_view task, std::string_view scenario,
                  std::string_view family, std::string_view vendor, std::string_view precision, double throughput,
                  double latency_s) {
  Sureness s;
  const auto known = workload::parse_family(family);
  const std::string kind = task == "train" ? "training" : "inference";
  // "training rows of nvidia CNN workloads" ("row" for one).
  auto rows_of = [&](const ErrorBand& b, bool one) {
    if (b.family == "*") return kind + (one ? " row" : " rows");
    const auto f = workload::parse_family(b.family);
    return kind + (one ? " row of " : " rows of ") + b.vendor + " " + std::string(f ? workload::label(*f) : b.family) +
           " workloads" + (task == "train" ? "" : " (" + b.scenario + ")");
  };
  const std::string what =
      std::string(vendor) + " " + std::string(known ? workload::label(*known) : family) + " workloads";
  const ErrorBand* b = nullptr;
  for (const ErrorBand& x : bands)
    if (x.task == task && x.scenario == scenario && x.family == family && x.vendor == vendor) b = &x;
  bool fallback = false;
  if (!b)
    for (const ErrorBand& x : bands)
      if (x.task == task && x.family == family && x.vendor == vendor && (!b || x.rows > b->rows)) b = &x, fallback = true;
  if (!b)
    for (const ErrorBand& x : bands)
      if (x.task == task && x.family == "*") b = &x, fallback = true;
  if (!b) {
    s.note = "no published " + kind + " rows of " + what + " check this combination";
    return s;
  }
  char span[64];
  std::snprintf(span, sizeof span, "%.2f-%.2f", b->ratio_low, b->ratio_high);
  const std::string basis = std::to_string(b->rows) + " published " + rows_of(*b, b->rows == 1) +
                            ", cross-validated (80 % of measured / predicted within " + span + ")";
  if (throughput > 0) s.throughput = Range{throughput * b->ratio_low, throughput * b->ratio_high, basis};
  if (latency_s > 0) s.latency_s = Range{latency_s / b->ratio_high, latency_s / b->ratio_low, basis};
  if (fallback) {
    s.unvalidated = true;
    s.note = b->family == "*" ? "no published " + kind + " row of " + what + "; the range of every " + kind + " row"
                              : "no published " + std::string(scenario) + " row of " + what + "; the range of their " +
                                    b->scenario + " rows";
    return s;
  }
  s.unvalidated = std::find(b->precisions.begin(), b->precisions.end(), std::string(precision)) == b->precisions.end();
  // A row's precision is the one it was checked in: the one it names, else
  // the task's default (a training row naming none is checked in bf16 even
  // if the submission ran fp8), so say what was checked, not what ran.
  if (s.unvalidated) s.note = "none of the published " + rows_of(*b, false) + " was checked in " + std::string(precision);
  return s;
}

}  // namespace rooftop::model
