// The advise scenario reader (advise/scenario.h parse_scenario) on
// arbitrary YAML: a Scenario or an Error with file:line, never a crash.
#include "advise/scenario.h"
#include "fuzz_input.h"

using rooftop::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto s = rooftop::advise::parse_scenario(rooftop::fuzz::text(data, size), "fuzz/scenario.yaml");
  rooftop::fuzz::explained(s);
  return 0;
}
