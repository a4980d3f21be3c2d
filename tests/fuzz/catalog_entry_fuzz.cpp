// One catalog entry (catalog/catalog.h parse_accelerator and
// check_accelerator) from arbitrary YAML: an Accelerator or Errors with
// "file:line", never a crash. A parsed entry has an id and no negative or
// non-finite figure in the fields the model divides by.
#include <cmath>

#include "catalog/catalog.h"
#include "fuzz_input.h"

using rooftop::fuzz::check;

namespace {
void sane(const rooftop::catalog::Sourced& s, const char* what) {
  if (s.value) check(std::isfinite(*s.value) && *s.value >= 0, what);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const rooftop::catalog::SourceText src{"fuzz/entry.yaml", std::string(rooftop::fuzz::text(data, size))};
  auto a = rooftop::catalog::parse_accelerator(src);
  const std::vector<rooftop::Error> problems = rooftop::catalog::check_accelerator(src);
  check(a.has_value() == problems.empty(), "parse and check agree on whether the entry is valid");
  if (!a) return 0;
  check(!a->id.empty(), "a parsed entry has an id");
  sane(a->memory_bytes, "memory_bytes");
  sane(a->memory_bytes_per_s, "memory bandwidth");
  sane(a->power_w, "power");
  for (const rooftop::catalog::Sourced& peak : a->peak_flop_per_s) sane(peak, "peak");
  return 0;
}
