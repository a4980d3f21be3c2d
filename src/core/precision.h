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

// Precision is three things (docs/model.md#precision): the format the math
// runs in (the activations; its peak is used), the stored weights, and the
// KV cache. A plain Precision converts to the uniform mix.
struct PrecisionMix {
  Precision compute = Precision::fp16;
  Precision weights = Precision::fp16;
  Precision kv = Precision::fp16;
  // The math of matrix multiplies and convolutions when it differs from
  // `compute`: fp8 training runs only those in fp8 and keeps every tensor
  // at 16 bits (docs/model.md#fp8-training).
  std::optional<Precision> gemm;
  PrecisionMix() = default;
  PrecisionMix(Precision p) : compute(p), weights(p), kv(p) {}  // NOLINT(google-explicit-constructor)
  bool uniform() const { return weights == compute && kv == compute && (!gemm || *gemm == compute); }
  // The math format of an operator: `gemm` for matrix units, else `compute`.
  Precision math(bool matrix_op) const { return matrix_op && gemm ? *gemm : compute; }
};
// "fp8", or "w4a16" / "int4 weights, fp16 activations, fp8 kv" when mixed;
// "fp8 matmuls, bf16 tensors" for fp8 training.
std::string to_string(const PrecisionMix& m);

// What a --precision value fixes; the parts it leaves open take the default.
struct PrecisionSpec {
  std::optional<Precision> compute, weights, kv;
};
// Accepts one format for everything ("fp8", "int8"), weight/activation pairs
// ("w4a16", "w8a8", "w4a8", "w8a16"), and parts joined by ',', '+' or '/':
// "fp8-kv" / "kv=fp8", "fp4-weights" / "weights=fp4" / "w4", "a16" /
// "activations=bf16" ("w4a16+fp8-kv"). A plain format fixes the math and the
// weights, not the KV cache. nullopt when any part is unknown or two parts
// disagree.
std::optional<PrecisionSpec> parse_precision_spec(std::string_view text);
// The accepted forms, for error messages.
inline constexpr std::string_view kPrecisionForms =
    "fp64, fp32, tf32, fp16, bf16, fp8, int8, int4, fp4; w4a16, w8a8, w4a8, w8a16; parts joined by '+' or ',': "
    "fp8-kv (or kv=fp8), fp4-weights (or weights=fp4, w4), a16 (or activations=bf16)";

}  // namespace rooftop
