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

std::string to_string(const PrecisionMix& m) {
  if (m.uniform()) return std::string(to_string(m.compute));
  if (m.gemm && m.weights == m.compute && m.kv == m.compute)
    return std::string(to_string(*m.gemm)) + " matmuls, " + std::string(to_string(m.compute)) + " tensors";
  std::string s = std::string(to_string(m.weights)) + " weights, " + std::string(to_string(m.compute)) + " activations";
  return s + ", " + std::string(to_string(m.kv)) + " kv";
}

namespace {
// "4" -> int4, "8" -> int8, "16" -> fp16 (the bit widths of wXaY names).
std::optional<Precision> from_bits(std::string_view bits) {
  if (bits == "4") return Precision::int4;
  if (bits == "8") return Precision::int8;
  if (bits == "16") return Precision::fp16;
  if (bits == "32") return Precision::fp32;
  return std::nullopt;
}
bool set(std::optional<Precision>& slot, std::optional<Precision> v) {
  if (!v || (slot && *slot != *v)) return false;
  slot = v;
  return true;
}
std::string_view strip(std::string_view s, std::string_view affix, bool prefix) {
  if (s.size() <= affix.size()) return {};
  if (prefix) return s.substr(0, affix.size()) == affix ? s.substr(affix.size()) : std::string_view{};
  return s.substr(s.size() - affix.size()) == affix ? s.substr(0, s.size() - affix.size()) : std::string_view{};
}
}  // namespace

std::optional<PrecisionSpec> parse_precision_spec(std::string_view text) {
  std::string all(text);
  std::transform(all.begin(), all.end(), all.begin(), [](unsigned char c) { return std::tolower(c); });
  PrecisionSpec spec;
  std::optional<Precision> every;
  std::size_t start = 0;
  bool any = false;
  while (start <= all.size()) {
    std::size_t end = all.find_first_of(",+/", start);
    if (end == std::string::npos) end = all.size();
    std::string part = all.substr(start, end - start);
    start = end + 1;
    part.erase(0, part.find_first_not_of(' '));
    part.erase(part.find_last_not_of(' ') + 1);
    if (part.empty()) return std::nullopt;
    any = true;
    std::string_view v = part;
    if (auto p = parse_precision(v)) {
      if (!set(every, p)) return std::nullopt;
      continue;
    }
    bool ok = false;
    for (std::string_view suffix : {"-kv", "_kv", " kv"})
      if (auto q = strip(v, suffix, false); !q.empty()) ok = set(spec.kv, parse_precision(q));
    for (std::string_view prefix : {"kv=", "kv-", "kv:"})
      if (auto q = strip(v, prefix, true); !q.empty()) ok = set(spec.kv, parse_precision(q));
    for (std::string_view suffix : {"-weights", "-weight", "-w", " weights", " weight"})
      if (auto q = strip(v, suffix, false); !q.empty()) ok = set(spec.weights, parse_precision(q));
    for (std::string_view prefix : {"weights=", "w="})
      if (auto q = strip(v, prefix, true); !q.empty()) ok = set(spec.weights, parse_precision(q));
    for (std::string_view prefix : {"activations=", "a="})
      if (auto q = strip(v, prefix, true); !q.empty()) ok = set(spec.compute, parse_precision(q));
    if (!ok && v.size() >= 2 && (v[0] == 'w' || v[0] == 'a') && std::isdigit(static_cast<unsigned char>(v[1]))) {
      // wX, aY or wXaY
      std::size_t a = v.find('a', 1);
      if (v[0] == 'a') ok = set(spec.compute, from_bits(v.substr(1)));
      else if (a == std::string_view::npos) ok = set(spec.weights, from_bits(v.substr(1)));
      else ok = set(spec.weights, from_bits(v.substr(1, a - 1))) && set(spec.compute, from_bits(v.substr(a + 1)));
    }
    if (!ok) return std::nullopt;
  }
  if (!any) return std::nullopt;
  if (every) {
    // A plain format sets the math and the weights the others leave open.
    // The KV cache stays open: serving stacks keep it in the model's 16-bit
    // type unless it is named (docs/model.md#precision).
    if (!spec.compute) spec.compute = every;
    if (!spec.weights) spec.weights = every;
  }
  return spec;
}

bool is_integer(Precision p) { return p == Precision::int8 || p == Precision::int4; }

}  // namespace rooftop
