// The kernel list: ISA-specific peak kernels when the CPU has them, else a
// portable scalar-FMA kernel so every architecture reports fp64 and fp32.
#include <cmath>

#include "bench/backends/cpu_kernels.h"

namespace rooftop::bench::cpu {
namespace {

double opaque(double v) {
  volatile double x = v;
  return x;
}

// 8 independent chains; the compiler may vectorise, which only raises the rate.
template <typename T>
double portable_fma(std::uint64_t n) {
  const T m = static_cast<T>(opaque(0.5)), a = static_cast<T>(opaque(1.0));
  T c[8];
  for (int k = 0; k < 8; ++k) c[k] = static_cast<T>(k / 8.0);
  for (std::uint64_t i = 0; i < n; ++i)
    for (T& x : c) x = std::fma(x, m, a);
  double s = 0;
  for (T x : c) s += static_cast<double>(x);
  return s;
}

template <typename T>
double portable_ref(std::uint64_t n) {
  double s = 0;
  for (int k = 0; k < 8; ++k) {
    T x = static_cast<T>(k / 8.0);
    for (std::uint64_t i = 0; i < n; ++i) {
      T next = std::fma(x, static_cast<T>(0.5), static_cast<T>(1.0));
      if (next == x) break;  // fixed point reached
      x = next;
    }
    s += static_cast<double>(x);
  }
  return s;
}

}  // namespace

std::vector<PeakKernel> peak_kernels(const CpuFeatures& f) {
  std::vector<PeakKernel> out = x86_peak_kernels(f);
  bool has_fp64 = false;
  for (const auto& k : out) has_fp64 = has_fp64 || k.precision == Precision::fp64;
  if (!has_fp64) {
    const std::string why = "portable C++ std::fma over 8 chains; lanes and FMA units of this CPU unknown, so no theoretical peak";
    out.insert(out.begin(), {"scalar", Precision::fp32, 8 * 2, portable_fma<float>, portable_ref<float>, 1e-6,
                             std::nullopt, why});
    out.insert(out.begin(), {"scalar", Precision::fp64, 8 * 2, portable_fma<double>, portable_ref<double>, 1e-12,
                             std::nullopt, why});
  }
  return out;
}

}  // namespace rooftop::bench::cpu
