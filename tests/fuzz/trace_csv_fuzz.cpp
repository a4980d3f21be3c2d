// The telemetry trace CSV reader (telemetry/telemetry.h parse_trace, as the
// fake backend replays it) on arbitrary bytes: a Trace sorted by time or an
// Error naming the line, never a crash; a Trace formats again without one.
#include "fuzz_input.h"
#include "telemetry/telemetry.h"

using rooftop::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto t = rooftop::telemetry::parse_trace(rooftop::fuzz::text(data, size), "fuzz/trace.csv");
  if (!rooftop::fuzz::explained(t)) return 0;
  for (std::size_t i = 1; i < t->rows.size(); ++i) check(t->rows[i - 1].t_s <= t->rows[i].t_s, "rows sorted by time");
  rooftop::telemetry::format_trace(*t);
  return 0;
}
