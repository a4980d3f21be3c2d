// Where analyze reads utilisation history from: the monitor's SQLite store
// (one host), or a Prometheus server's HTTP API (a fleet). Both feed the same
// Profiler, so detectors see the same thing whichever source was used.
#pragma once

#include <functional>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>

#include "analyze/analyze.h"
#include "core/result.h"
#include "telemetry/telemetry.h"

namespace rooftop::analyze {

// --match "host=node-1,gpu=0,job=train": label equality filters.
struct Matcher {
  std::map<std::string, std::string> labels;
};
Result<Matcher> parse_matcher(const std::string& text);

struct TimeRange {
  std::optional<double> from_s, to_s;  // empty = the source's whole history
};
// Unix seconds, or ISO 8601 "2026-11-30T12:00:00Z" (UTC; "T" or space).
Result<double> parse_time(const std::string& text);
std::string format_time(double unix_s);  // "2026-11-30T12:00:00Z"

// Progress callback: fraction done in [0, 1] and what is being read.
using ProgressFn = std::function<void(double, const std::string&)>;

Result<Profiles> profile_store(const std::string& db_path, const TimeRange& range, const Matcher& match,
                               const ProgressFn& progress = {});

struct PrometheusOptions {
  double timeout_s = 120;  // per query: the server's timeout, and the longest silence on the connection
  std::string bearer_token;                // Authorization: Bearer
  std::string basic_user, basic_password;  // Authorization: Basic
  std::string ca_file;                     // https: the CA that signed the server's certificate
};

// `url` is http[s]://host[:port][/path] (a path prefix for servers behind
// one: Mimir's /prometheus, Grafana Cloud's /api/prom). Uses dcgm-exporter names when present, else
// rooftop_* names. Screens every device on window aggregates and reads the
// points of only the devices a detector with thresholds `t` could flag
// (source_prometheus.cpp).
Result<Profiles> profile_prometheus(const std::string& url, const TimeRange& range, const Matcher& match,
                                    const ProgressFn& progress = {}, const Thresholds& t = {},
                                    const PrometheusOptions& opts = {});

// An OpenMetrics text file with timestamps (source_openmetrics.cpp): the
// Prometheus source's names and labels, read without a server. Garbage is
// Errc::invalid_input naming FILE:LINE.
Result<Profiles> profile_openmetrics(const std::string& path, const TimeRange& range, const Matcher& match);
// The same from a stream (the file's text), `path` naming it in messages.
Result<Profiles> profile_openmetrics(std::istream& in, const std::string& path, const TimeRange& range,
                                     const Matcher& match);

}  // namespace rooftop::analyze

namespace rooftop::analyze {

// A trace file's rows (as replayed by the fake backend) profiled directly,
// with trace time 0 at Unix time `start_s`.
Profiles profile_trace(const telemetry::Trace& trace, double start_s);

}  // namespace rooftop::analyze
