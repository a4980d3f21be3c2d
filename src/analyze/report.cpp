#include "analyze/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "analyze/sources.h"

namespace rooftop::analyze {

namespace {

const DeviceProfile* find_device(const Profiles& p, const std::string& id) {
  for (const DeviceProfile& d : p.devices) {
    if (d.key.id() == id) return &d;
  }
  return nullptr;
}

std::string evidence_text(const Finding& f) {
  std::string out;
  for (const auto& [k, v] : f.evidence) {
    if (k == "catalog_match") continue;
    out += (out.empty() ? "" : ", ") + fmt::format("{} {:.3g}", k, v);
  }
  return out;
}

}  // namespace

std::string finding_chart(const Profiles& p, const Finding& f) {
  const DeviceProfile* d = find_device(p, f.device);
  report::LineChart c;
  c.title = fmt::format("{}: {}", f.device, to_string(f.kind));
  c.x_is_time = true;
  c.x.label = "time (UTC)";
  c.y.label = "percent";
  c.y.min = 0;
  c.y.max = 100;
  if (!d) return report::svg_line(c);
  report::Series util{"utilisation %", {}, {}};
  report::Series extra;
  if (f.kind == FindingKind::io_bound) extra.name = "host CPU busy %";
  else if (f.kind == FindingKind::throttling) extra.name = "SM clock % of reference";
  else if (f.kind == FindingKind::memory_pressure || f.kind == FindingKind::memory_headroom) extra.name = "memory used %";
  auto host = p.hosts.find(d->key.host);
  double ref_clock = 0;
  for (const Bucket& b : d->buckets) {
    if (b.clock_n) ref_clock = std::max(ref_clock, static_cast<double>(b.clock_sum / static_cast<float>(b.clock_n)));
  }
  for (std::size_t i = 0; i < d->buckets.size(); ++i) {
    const Bucket& b = d->buckets[i];
    if (b.n == 0) continue;
    double x = p.from_s + (static_cast<double>(i) + 0.5) * p.bucket_s;
    util.x.push_back(x);
    util.y.push_back(b.util_mean());
    double v = NAN;
    if (f.kind == FindingKind::io_bound && host != p.hosts.end() && host->second[i].cpu_n)
      v = host->second[i].cpu_sum / static_cast<float>(host->second[i].cpu_n);
    else if (f.kind == FindingKind::throttling && b.clock_n && ref_clock > 0)
      v = 100 * b.clock_sum / static_cast<float>(b.clock_n) / ref_clock;
    else if ((f.kind == FindingKind::memory_pressure || f.kind == FindingKind::memory_headroom) && !std::isnan(b.mem_frac_max))
      v = 100 * b.mem_frac_max;
    if (!std::isnan(v)) {
      extra.x.push_back(x);
      extra.y.push_back(v);
    }
  }
  c.series.push_back(std::move(util));
  if (!extra.x.empty()) c.series.push_back(std::move(extra));
  c.windows.push_back(report::Window{f.window.from_s, f.window.to_s, std::string(to_string(f.kind))});
  return report::svg_line(c);
}

std::vector<std::string> workload_summary(const Profiles& p, const std::vector<Finding>& findings) {
  struct Group {
    std::set<std::string> devices, models;
    double hours = 0, wasted = 0, usd = 0;
    bool any_usd = false;
  };
  std::map<std::tuple<std::string, std::string, std::string>, Group> groups;
  std::map<std::string, const DeviceProfile*> by_id;
  for (const DeviceProfile& d : p.devices) by_id[d.key.id()] = &d;
  for (const Finding& f : findings) {
    if (f.pod.empty()) continue;
    Group& g = groups[{f.ns, f.pod, std::string(to_string(f.kind))}];
    g.devices.insert(f.device);
    auto d = by_id.find(f.device);
    if (d != by_id.end() && !d->second->key.model.empty()) g.models.insert(d->second->key.model);
    g.hours = std::max(g.hours, (f.window.to_s - f.window.from_s) / 3600);
    g.wasted += f.wasted_device_hours;
    if (f.wasted_usd) {
      g.usd += *f.wasted_usd;
      g.any_usd = true;
    }
  }
  std::vector<std::pair<double, std::string>> lines;
  for (const auto& [key, g] : groups) {
    const auto& [ns, pod, kind] = key;
    std::string model = g.models.size() == 1 ? *g.models.begin() : "devices";
    lines.emplace_back(g.wasted, fmt::format("{}pod {}: {} x {} {} over {:.1f} h, {:.1f} device-hours wasted{}",
                                             ns.empty() ? "" : "namespace " + ns + ", ", pod, g.devices.size(), model,
                                             kind, g.hours, g.wasted,
                                             g.any_usd ? fmt::format(" (about ${:.0f})", g.usd) : ""));
  }
  std::stable_sort(lines.begin(), lines.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> out;
  for (auto& [w, line] : lines) out.push_back(std::move(line));
  return out;
}

report::Document build_report(const Profiles& p, const std::vector<Finding>& findings, const Thresholds& t,
                              const ReportContext& ctx) {
  report::Document doc;
  doc.title = "rooftop analyze — optimisation report";
  double device_hours = 0, wasted = 0, usd = 0;
  bool any_usd = false;
  for (const DeviceProfile& d : p.devices) {
    std::size_t n = 0;
    for (const Bucket& b : d.buckets) n += b.n > 0;
    device_hours += static_cast<double>(n) * p.bucket_s / 3600;
  }
  for (const Finding& f : findings) {
    wasted += f.wasted_device_hours;
    if (f.wasted_usd) {
      usd += *f.wasted_usd;
      any_usd = true;
    }
  }
  doc.blocks.push_back(report::Paragraph{fmt::format(
      "Source: {}. Window {} .. {} ({} devices{}, {:.1f} device-hours read, {} points, {} s buckets). {} findings; "
      "estimated waste {:.1f} device-hours{}.",
      ctx.source, format_time(p.from_s), format_time(p.to_s), p.devices.size(),
      p.devices_read ? fmt::format(", {} read in full, the rest screened on window aggregates", p.devices_read) : "",
      device_hours, p.points, p.bucket_s,
      findings.size(), wasted, any_usd ? fmt::format(" (about ${:.0f} at catalog cloud prices)", usd) : "")});

  report::Table table;
  table.headers = {"#", "kind", "device", "job", "window", "wasted device-h", "summary"};
  table.align = {report::Align::right, report::Align::left, report::Align::left, report::Align::left,
                 report::Align::left, report::Align::right, report::Align::left};
  for (std::size_t i = 0; i < findings.size(); ++i) {
    const Finding& f = findings[i];
    table.rows.push_back({std::to_string(i + 1), std::string(to_string(f.kind)), f.device, f.job.empty() ? "-" : f.job,
                          format_time(f.window.from_s) + " .. " + format_time(f.window.to_s),
                          fmt::format("{:.2f}", f.wasted_device_hours), f.summary});
  }
  if (std::vector<std::string> by_pod = workload_summary(p, findings); !by_pod.empty()) {
    doc.blocks.push_back(report::Heading{2, "By workload"});
    doc.blocks.push_back(report::BulletList{by_pod});
  }
  doc.blocks.push_back(report::Heading{2, "Findings, by estimated impact"});
  if (findings.empty()) doc.blocks.push_back(report::Paragraph{"No problems found: every device looks healthy."});
  else doc.blocks.push_back(table);

  for (std::size_t i = 0; i < findings.size(); ++i) {
    const Finding& f = findings[i];
    doc.blocks.push_back(report::Heading{3, fmt::format("{}. {} — {}", i + 1, to_string(f.kind), f.device)});
    doc.blocks.push_back(report::Paragraph{f.summary + "."});
    doc.blocks.push_back(report::BulletList{{"Evidence: " + evidence_text(f),
                                             "Window: " + format_time(f.window.from_s) + " .. " + format_time(f.window.to_s),
                                             "Recommendation: " + f.recommendation}});
    if (i < ctx.max_charts) {
      doc.blocks.push_back(report::Figure{finding_chart(p, f), "Utilisation with the finding's window shaded",
                                          fmt::format("finding-{}", i + 1)});
    }
  }
  doc.blocks.push_back(report::Heading{2, "Thresholds"});
  report::Table th;
  th.headers = {"threshold", "value"};
  th.align = {report::Align::left, report::Align::right};
  for (const auto& [k, v] : t.list()) th.rows.push_back({k, fmt::format("{:g}", v)});
  doc.blocks.push_back(th);
  doc.blocks.push_back(report::Paragraph{"Override any with --threshold NAME=VALUE; definitions in docs/analyze.md."});
  return doc;
}

}  // namespace rooftop::analyze
