// Trace files: the CSV format the fake backend replays and that `rooftop
// analyze` and a trace synthesizer read and write (docs/monitor.md).
//
// One row per device per timestamp; the header names the columns, so their
// order is free and every column except t_s and gpu is optional. An empty
// cell is "unknown" and stays std::nullopt.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/text.h"
#include "telemetry/metrics.h"

namespace rooftop::telemetry {
namespace {

// The identity columns and the host's; the device values are the traced
// rows of the metric table (telemetry/metrics.h), written between them.
enum class Col { t_s, host, job, gpu, uuid, model, metric, host_cpu_pct, host_iowait_pct };

struct ColDef {
  std::string_view name;
  Col col;
  const DeviceMetric* metric = nullptr;  // Col::metric
};

std::vector<ColDef> columns() {
  std::vector<ColDef> out = {{"t_s", Col::t_s}, {"host", Col::host}, {"job", Col::job},
                             {"gpu", Col::gpu}, {"uuid", Col::uuid}, {"model", Col::model}};
  for (const DeviceMetric& m : kDeviceMetrics) {
    if (m.trace_max > 0 && m.field.in_sample()) out.push_back({m.column, Col::metric, &m});
  }
  out.push_back({"host_cpu_pct", Col::host_cpu_pct});
  out.push_back({"host_iowait_pct", Col::host_iowait_pct});
  return out;
}

const std::vector<ColDef>& kColumns() {
  static const std::vector<ColDef> cols = columns();
  return cols;
}

std::vector<std::string> column_names() {
  std::vector<std::string> out;
  for (const ColDef& c : kColumns()) out.emplace_back(c.name);
  return out;
}

// Parses one numeric cell; `max` bounds percentages.
Result<std::optional<double>> number(const std::string& cell, std::string_view col, double max) {
  if (cell.empty()) return std::optional<double>{};
  auto v = parse_double(cell);
  if (!v || !std::isfinite(*v) || *v < 0 || *v > max)
    return make_error(Errc::invalid_input,
                      fmt::format("column {}: '{}' is not a number in [0, {}]", col, cell, max));
  return std::optional<double>{*v};
}

Result<std::optional<std::uint64_t>> mask(const std::string& cell) {
  if (cell.empty()) return std::optional<std::uint64_t>{};
  try {
    std::size_t used = 0;
    const std::uint64_t v = std::stoull(cell, &used, 0);
    if (used == cell.size() && cell[0] != '-') return std::optional<std::uint64_t>{v};
  } catch (const std::exception&) {
  }
  return make_error(Errc::invalid_input,
                    fmt::format("column throttle_reasons: '{}' is not a bit mask (e.g. 0x4 or 4)", cell));
}

// A device value cell: a number, a bit mask or a code, as the row's field is.
Result<void> set_metric(DeviceSample& s, const DeviceMetric& m, const std::string& cell) {
  const DeviceField& f = m.field;
  if (f.real) {
    auto v = number(cell, m.column, m.trace_max);
    if (!v) return make_error(v.error());
    s.*f.real = *v;
  } else if (f.mask) {
    auto v = mask(cell);
    if (!v) return make_error(v.error());
    s.*f.mask = *v;
  } else if (f.code && !cell.empty()) {
    auto v = parse_int(cell);
    if (!v || *v < 0)
      return make_error(Errc::invalid_input, fmt::format("column {}: '{}' is not an XID code", m.column, cell));
    s.*f.code = *v;
  }
  return {};
}

Result<void> set_cell(TraceRow& r, const ColDef& def, const std::string& cell) {
  constexpr double kAny = kAnyValue;
  DeviceSample& s = r.sample;
  auto num = [&](std::optional<double>& dst, const char* name, double max) -> Result<void> {
    auto v = number(cell, name, max);
    if (!v) return make_error(v.error());
    dst = *v;
    return {};
  };
  switch (def.col) {
    case Col::metric: return set_metric(s, *def.metric, cell);
    case Col::t_s: {
      auto v = number(cell, "t_s", kAny);
      if (!v) return make_error(v.error());
      if (!*v) return make_error(Errc::invalid_input, "column t_s: a time is required");
      r.t_s = **v;
      return {};
    }
    case Col::gpu: {
      auto v = parse_int(cell);
      if (!v || *v < 0 || *v > 4095)
        return make_error(Errc::invalid_input, fmt::format("column gpu: '{}' is not a device index", cell));
      r.gpu = static_cast<int>(*v);
      return {};
    }
    case Col::host: r.host = cell; return {};
    case Col::job: s.job = cell; return {};
    case Col::uuid: r.uuid = cell; return {};
    case Col::model: r.model = cell; return {};
    case Col::host_cpu_pct: return num(r.host_cpu_pct, "host_cpu_pct", 100);
    case Col::host_iowait_pct: return num(r.host_iowait_pct, "host_iowait_pct", 100);
  }
  return {};
}

std::string cell(const std::optional<double>& v) { return v ? fmt::format("{}", *v) : std::string(); }

}  // namespace

Result<Trace> parse_trace(std::string_view text, const std::string& source) {
  Trace trace;
  std::vector<const ColDef*> header;
  bool seen_t = false, seen_gpu = false;
  int line_no = 0;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    const std::string where = fmt::format("{}:{}", source, line_no);
    std::vector<std::string> cells = split(t, ',');
    for (std::string& c : cells) c = trim(c);
    if (header.empty()) {
      for (const std::string& c : cells) {
        const std::vector<ColDef>& defs = kColumns();
        auto it = std::find_if(defs.begin(), defs.end(), [&](const ColDef& d) { return c == d.name; });
        if (it == defs.end())
          return make_error(Errc::invalid_input, did_you_mean("trace column", c, column_names()), where);
        if (std::find(header.begin(), header.end(), &*it) != header.end())
          return make_error(Errc::invalid_input, "column '" + c + "' appears twice", where);
        header.push_back(&*it);
        seen_t |= it->col == Col::t_s;
        seen_gpu |= it->col == Col::gpu;
      }
      if (!seen_t || !seen_gpu)
        return make_error(Errc::invalid_input, "the header must name the columns t_s and gpu", where);
      continue;
    }
    if (cells.size() != header.size())
      return make_error(Errc::invalid_input,
                        fmt::format("expected {} cells as in the header, got {}", header.size(), cells.size()),
                        where);
    TraceRow row;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (auto r = set_cell(row, *header[i], cells[i]); !r) return make_error(r.error().code, r.error().message, where);
    }
    if (row.uuid.empty()) row.uuid = fmt::format("FAKE-{}-{}", row.host.empty() ? "host" : row.host, row.gpu);
    trace.rows.push_back(std::move(row));
  }
  if (trace.rows.empty()) return make_error(Errc::invalid_input, "trace has no rows", source);
  std::stable_sort(trace.rows.begin(), trace.rows.end(),
                   [](const TraceRow& a, const TraceRow& b) { return a.t_s < b.t_s; });
  return trace;
}

Result<Trace> load_trace(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return make_error(Errc::not_found, "cannot open trace file", path);
  std::ostringstream ss;
  ss << f.rdbuf();
  return parse_trace(ss.str(), path);
}

std::string format_trace(const Trace& trace) {
  std::string out = "# rooftop trace v1 (docs/monitor.md)\n";
  const std::vector<ColDef>& defs = kColumns();
  for (std::size_t i = 0; i < defs.size(); ++i) out += (i ? "," : "") + std::string(defs[i].name);
  out += '\n';
  for (const TraceRow& r : trace.rows) {
    const DeviceSample& s = r.sample;
    for (std::size_t i = 0; i < defs.size(); ++i) {
      if (i) out += ',';
      switch (defs[i].col) {
        case Col::t_s: out += fmt::format("{}", r.t_s); break;
        case Col::host: out += r.host; break;
        case Col::job: out += s.job; break;
        case Col::gpu: out += std::to_string(r.gpu); break;
        case Col::uuid: out += r.uuid; break;
        case Col::model: out += r.model; break;
        case Col::host_cpu_pct: out += cell(r.host_cpu_pct); break;
        case Col::host_iowait_pct: out += cell(r.host_iowait_pct); break;
        case Col::metric: {
          const DeviceField& f = defs[i].metric->field;
          if (f.real) out += cell(s.*f.real);
          else if (f.mask && s.*f.mask) out += fmt::format("{:#x}", *(s.*f.mask));
          else if (f.code && s.*f.code) out += std::to_string(*(s.*f.code));
          break;
        }
      }
    }
    out += '\n';
  }
  return out;
}

}  // namespace rooftop::telemetry
