// The validation CSV reader (model/validate.h parse_measurements: RFC 4180
// quoting, fields across lines, BOM, CRLF, huge fields) on arbitrary bytes:
// rows or an Error with name:line, never a crash. Rows carry their line.
#include "fuzz_input.h"
#include "model/validate.h"

using rooftop::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto rows = rooftop::model::parse_measurements(rooftop::fuzz::text(data, size), "fuzz/measurements.csv");
  if (!rooftop::fuzz::explained(rows)) return 0;
  for (const auto& r : *rows) check(r.line >= 2, "a row's line is after the header");
  return 0;
}
