#include "core/precision.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace rooftop {

std::string_view to_string(Precision p) {
  switch (p) {
    case Precision::fp64: return "fp64";
    case Precision::fp32: return "fp32";
    case Precision::tf32: return "tf32";
    case Precision::fp16: return "fp16";
    case Precision::bf16: return "bf16";
    case Precision::fp8: return "fp8";
    case Precision::int8: return "int8";
    case Precision::int4: return "int4";
    case Precision::fp4: return "fp4";
  }
  return "?";
}

std::optional<Precision> parse_precision(std::string_view text) {
  std::string s(text);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  for (Precision p : kAllPrecisions) {
    if (s == to_string(p)) return p;
  }
  if (s == "double" || s == "float64") return Precision::fp64;
  if (s == "float" || s == "float32" || s == "single") return Precision::fp32;
  if (s == "half" || s == "float16") return Precision::fp16;
  if (s == "bfloat16") return Precision::bf16;
  if (s == "e4m3" || s == "e5m2" || s == "float8" || s == "fp8-e4m3" || s == "fp8-e5m2") return Precision::fp8;
  if (s == "int8-vnni" || s == "i8") return Precision::int8;
  if (s == "i4") return Precision::int4;
  if (s == "nvfp4" || s == "mxfp4") return Precision::fp4;
  return std::nullopt;
}

double bytes_per_element(Precision p) {
  switch (p) {
    case Precision::fp64: return 8;
    case Precision::fp32:
    case Precision::tf32: return 4;
    case Precision::fp16:
    case Precision::bf16: return 2;
    case Precision::fp8:
    case Precision::int8: return 1;
    case Precision::int4:
    case Precision::fp4: return 0.5;
  }
  return 4;
}

bool is_integer(Precision p) { return p == Precision::int8 || p == Precision::int4; }

}  // namespace rooftop
