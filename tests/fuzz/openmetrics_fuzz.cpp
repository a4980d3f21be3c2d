// The OpenMetrics text reader of `analyze --openmetrics`
// (analyze/sources.h profile_openmetrics) on arbitrary text: Profiles or an
// Error naming FILE:LINE, never a crash, an exception or a hang (a profile's
// size follows the time span, which the input chooses).
#include <sstream>

#include "analyze/sources.h"
#include "fuzz_input.h"

using rooftop::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in{std::string(rooftop::fuzz::text(data, size))};
  auto p = rooftop::analyze::profile_openmetrics(in, "fuzz.om", {}, {});
  if (!rooftop::fuzz::explained(p)) return 0;
  check(!p->devices.empty(), "a profile has a device");
  return 0;
}
