// Numeric precisions an accelerator computes in, and their storage sizes.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace rooftop {

enum class Precision { fp64, fp32, tf32, fp16, bf16, fp8, int8, int4, fp4 };

inline constexpr std::array<Precision, 9> kAllPrecisions = {
    Precision::fp64, Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16,
    Precision::fp8,  Precision::int8, Precision::int4, Precision::fp4};

// "fp64", "bf16", ...
std::string_view to_string(Precision p);

// Accepts the canonical names and common spellings ("float16", "half",
// "FP8", "e4m3"); nullopt when unknown.
std::optional<Precision> parse_precision(std::string_view text);

// Bytes one element occupies in memory (tf32 is stored as fp32; 4-bit types
// take half a byte).
double bytes_per_element(Precision p);

// True for the integer formats, whose peak is quoted in TOPS, not TFLOP/s.
bool is_integer(Precision p);

}  // namespace rooftop
