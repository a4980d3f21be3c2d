// The CPU kernels, as plain functions chosen at run time from cpu_features().
//
// Peak kernels (cpu_peak_x86.cpp, cpu_peak.cpp) keep 12-16 independent
// accumulator chains in registers (FMA latency 4 x 2 ports needs >= 8;
// likwid-bench uses 15) and touch no memory; each returns a checksum of its
// accumulators, and `reference` computes the same checksum with scalar code,
// so a kernel's result is verified, not assumed. Values stay bounded
// (x = x*0.5 + 1 converges to 2) so no denormal or overflow assists fire.
//
// Memory kernels (cpu_stream.cpp) are hand-written with intrinsics so the
// compiler cannot turn a copy into memcpy with non-temporal stores (GCC -O3
// does that to STREAM's Copy; see the research anchors).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/cpu_info.h"
#include "core/precision.h"

namespace rooftop::bench::cpu {

struct PeakKernel {
  std::string unit;                   // "avx512_fma", "avx2_fma", "avx512_fp16", "avx512_bf16", "avx512_vnni", "amx", "scalar"
  Precision precision = Precision::fp64;
  double flops_per_iter = 0;          // per thread and loop iteration
  double (*run)(std::uint64_t iters) = nullptr;        // returns the checksum
  double (*reference)(std::uint64_t iters) = nullptr;  // scalar model of that checksum
  double tolerance = 0;               // relative, for verify
  std::optional<double> flop_per_cycle_per_core;       // documented issue rate; empty = unknown
  std::string assumption;
  // The same arithmetic on the scalar path (AMX: amx.h's emulation), for
  // kernels whose instructions most CPUs lack; nullptr when not emulated.
  double (*emulate)(std::uint64_t iters) = nullptr;
};

// Every peak kernel this CPU can run, in report order.
std::vector<PeakKernel> peak_kernels(const CpuFeatures& f);

// The ISA-specific peak kernels (defined only on x86-64; empty elsewhere).
std::vector<PeakKernel> x86_peak_kernels(const CpuFeatures& f);

// Streaming kernels over n doubles (n a multiple of 32; pointers 64-byte aligned).
enum class StreamKind { copy, triad, triad_nt };
struct StreamKernel {
  StreamKind kind = StreamKind::triad;
  std::string isa;  // "avx512", "avx2", "scalar"
  // a = b (copy) or a = b + s*c (triad); repeated `reps` times.
  void (*run)(double* a, const double* b, const double* c, double s, std::size_t n, std::uint64_t reps) = nullptr;
};
std::string_view to_string(StreamKind k);
// Arrays per element and bytes counted per element (STREAM: no write-allocate).
int arrays(StreamKind k);
double bytes_per_element(StreamKind k);
// The widest implementation available; triad_nt only with AVX2 or AVX-512.
std::optional<StreamKernel> stream_kernel(StreamKind k, const CpuFeatures& f);

}  // namespace rooftop::bench::cpu
