// The model's own tables read from CSV: the MLPerf reference convergence
// points (model/convergence.h parse_rcp), the error bands
// (model/ranges.h parse_error_bands) and a serving request trace
// (model/serve_sim.h parse_serve_trace), and the fitted stack parameters
// (model/calibration.h parse_calibration, YAML). The same bytes go to all
// four: rows or an Error, never a crash; error bands and parameters written
// back read again.
#include "fuzz_input.h"
#include "model/calibration.h"
#include "model/convergence.h"
#include "model/ranges.h"
#include "model/serve_sim.h"

using rooftop::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in = rooftop::fuzz::text(data, size);
  auto rcp = rooftop::model::parse_rcp(in, "fuzz/rcp.csv");
  rooftop::fuzz::explained(rcp);
  auto bands = rooftop::model::parse_error_bands(in, "fuzz/error-bands.csv");
  if (bands) {
    auto again = rooftop::model::parse_error_bands(rooftop::model::error_bands_csv(*bands), "fuzz/again.csv");
    check(again && again->size() == bands->size(), "error bands written back read again");
  }
  auto cal = rooftop::model::parse_calibration(in, "fuzz/calibration.yaml");
  if (cal) {
    auto again = rooftop::model::parse_calibration(rooftop::model::calibration_yaml(*cal), "fuzz/again.yaml");
    check(again && again->parameters.size() == cal->parameters.size(), "parameters written back read again");
  }
  bool arrivals = false;
  auto trace = rooftop::model::parse_serve_trace(in, "fuzz/requests.csv", &arrivals);
  rooftop::fuzz::explained(trace);
  return 0;
}
