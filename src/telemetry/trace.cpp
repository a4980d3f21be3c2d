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
#include "telemetry/telemetry.h"

namespace rooftop::telemetry {
namespace {

enum class Col {
  t_s, host, job, gpu, uuid, model, gpu_util_pct, mem_copy_util_pct, fb_used_bytes, fb_free_bytes,
  temp_c, power_w, energy_j, sm_clock_mhz, mem_clock_mhz, throttle_reasons, xid, host_cpu_pct,
  host_iowait_pct
};

struct ColDef {
  const char* name;
  Col col;
};
constexpr ColDef kColumns[] = {
    {"t_s", Col::t_s}, {"host", Col::host}, {"job", Col::job}, {"gpu", Col::gpu}, {"uuid", Col::uuid},
    {"model", Col::model}, {"gpu_util_pct", Col::gpu_util_pct},
    {"mem_copy_util_pct", Col::mem_copy_util_pct}, {"fb_used_bytes", Col::fb_used_bytes},
    {"fb_free_bytes", Col::fb_free_bytes}, {"temp_c", Col::temp_c}, {"power_w", Col::power_w},
    {"energy_j", Col::energy_j}, {"sm_clock_mhz", Col::sm_clock_mhz},
    {"mem_clock_mhz", Col::mem_clock_mhz}, {"throttle_reasons", Col::throttle_reasons},
    {"xid", Col::xid}, {"host_cpu_pct", Col::host_cpu_pct}, {"host_iowait_pct", Col::host_iowait_pct}};

std::vector<std::string> column_names() {
  std::vector<std::string> out;
  for (const ColDef& c : kColumns) out.emplace_back(c.name);
  return out;
}

// Parses one numeric cell; `max` bounds percentages.
Result<std::optional<double>> number(const std::string& cell, const char* col, double max) {
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

Result<void> set_cell(TraceRow& r, Col col, const std::string& cell) {
  constexpr double kAny = 1e300;
  DeviceSample& s = r.sample;
  auto num = [&](std::optional<double>& dst, const char* name, double max) -> Result<void> {
    auto v = number(cell, name, max);
    if (!v) return make_error(v.error());
    dst = *v;
    return {};
  };
  switch (col) {
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
    case Col::gpu_util_pct: return num(s.gpu_util_pct, "gpu_util_pct", 100);
    case Col::mem_copy_util_pct: return num(s.mem_copy_util_pct, "mem_copy_util_pct", 100);
    case Col::fb_used_bytes: return num(s.fb_used_bytes, "fb_used_bytes", kAny);
    case Col::fb_free_bytes: return num(s.fb_free_bytes, "fb_free_bytes", kAny);
    case Col::temp_c: return num(s.temp_c, "temp_c", 200);
    case Col::power_w: return num(s.power_w, "power_w", 1e5);
    case Col::energy_j: return num(s.energy_j, "energy_j", kAny);
    case Col::sm_clock_mhz: return num(s.sm_clock_mhz, "sm_clock_mhz", 1e5);
    case Col::mem_clock_mhz: return num(s.mem_clock_mhz, "mem_clock_mhz", 1e5);
    case Col::throttle_reasons: {
      auto v = mask(cell);
      if (!v) return make_error(v.error());
      s.throttle_reasons = *v;
      return {};
    }
    case Col::xid: {
      if (cell.empty()) return {};
      auto v = parse_int(cell);
      if (!v || *v < 0) return make_error(Errc::invalid_input, fmt::format("column xid: '{}' is not an XID code", cell));
      s.xid_last = *v;
      return {};
    }
    case Col::host_cpu_pct: return num(r.host_cpu_pct, "host_cpu_pct", 100);
    case Col::host_iowait_pct: return num(r.host_iowait_pct, "host_iowait_pct", 100);
  }
  return {};
}

std::string cell(const std::optional<double>& v) { return v ? fmt::format("{}", *v) : std::string(); }

}  // namespace

Result<Trace> parse_trace(std::string_view text, const std::string& source) {
  Trace trace;
  std::vector<Col> header;
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
        auto it = std::find_if(std::begin(kColumns), std::end(kColumns),
                               [&](const ColDef& d) { return c == d.name; });
        if (it == std::end(kColumns))
          return make_error(Errc::invalid_input, did_you_mean("trace column", c, column_names()), where);
        if (std::find(header.begin(), header.end(), it->col) != header.end())
          return make_error(Errc::invalid_input, "column '" + c + "' appears twice", where);
        header.push_back(it->col);
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
      if (auto r = set_cell(row, header[i], cells[i]); !r) return make_error(r.error().code, r.error().message, where);
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
  for (std::size_t i = 0; i < std::size(kColumns); ++i) out += (i ? "," : "") + std::string(kColumns[i].name);
  out += '\n';
  for (const TraceRow& r : trace.rows) {
    const DeviceSample& s = r.sample;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", r.t_s, r.host, s.job,
                       r.gpu, r.uuid, r.model, cell(s.gpu_util_pct), cell(s.mem_copy_util_pct),
                       cell(s.fb_used_bytes), cell(s.fb_free_bytes), cell(s.temp_c), cell(s.power_w),
                       cell(s.energy_j), cell(s.sm_clock_mhz), cell(s.mem_clock_mhz),
                       s.throttle_reasons ? fmt::format("{:#x}", *s.throttle_reasons) : "",
                       s.xid_last ? std::to_string(*s.xid_last) : "", cell(r.host_cpu_pct),
                       cell(r.host_iowait_pct));
  }
  return out;
}

}  // namespace rooftop::telemetry
