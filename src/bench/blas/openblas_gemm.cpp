// OpenBLAS sgemm/dgemm as the achievable dense rate next to the peak
// kernels (the anchors: dgemm ~91 %, sgemm ~94 % of the FMA kernel when the
// core type is right). Built when CMake found OpenBLAS's header; the library
// itself is dlopened on first use (core/dynlib.h), so a rooftop binary starts
// where OpenBLAS is not installed (bench then has no GEMM row), and processes
// that never run a GEMM (`rooftop monitor`) do not map it: OpenBLAS and its
// libgfortran are ~2 MB of resident pages at start.
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "bench/backends/cpu_backend.h"
#include "bench/runner.h"
#include "core/dynlib.h"

namespace rooftop::bench::cpu {
namespace {

// The few OpenBLAS entry points used, with cblas.h's own signatures.
struct Api {
  explicit Api(DynLib l) : lib(std::move(l)) {}
  DynLib lib;
  decltype(&::openblas_get_corename) corename = nullptr;
  decltype(&::openblas_get_config) config = nullptr;
  decltype(&::openblas_set_num_threads) set_num_threads = nullptr;
  decltype(&::cblas_dgemm) dgemm = nullptr;
  decltype(&::cblas_sgemm) sgemm = nullptr;
};

// Loaded once; null when no OpenBLAS loads or a function is missing.
const Api* api() {
  static const std::unique_ptr<Api> a = []() -> std::unique_ptr<Api> {
    Result<DynLib> lib = DynLib::open({"libopenblas.so.0", "libopenblas.so"});
    if (!lib) return nullptr;
    auto out = std::make_unique<Api>(std::move(*lib));
    if (!out->lib.require(out->corename, {"openblas_get_corename"}) ||
        !out->lib.require(out->config, {"openblas_get_config"}) ||
        !out->lib.require(out->set_num_threads, {"openblas_set_num_threads"}) ||
        !out->lib.require(out->dgemm, {"cblas_dgemm"}) || !out->lib.require(out->sgemm, {"cblas_sgemm"}))
      return nullptr;
    return out;
  }();
  return a.get();
}

std::string openblas_core() { return api()->corename(); }

std::string openblas_version() {
  std::string config = api()->config();  // "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Prescott MAX_THREADS=64"
  std::string version = config;
  if (config.rfind("OpenBLAS ", 0) == 0) version = config.substr(9, config.find(' ', 9) - 9);
  return version + " (core " + openblas_core() + ")";
}

// Deterministic values in [-1, 1].
template <typename T>
void fill(std::vector<T>& v, unsigned seed) {
  unsigned x = seed;
  for (T& e : v) {
    x = x * 1664525u + 1013904223u;
    e = static_cast<T>(static_cast<double>(x >> 8) / static_cast<double>(1u << 23) - 1.0);
  }
}

template <typename T>
Result<ComputeResult> run_gemm(const Options& o, int threads) {
  const int n = o.quick ? 768 : 4096;
  const std::size_t nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  auto a = std::make_shared<std::vector<T>>(nn), b = std::make_shared<std::vector<T>>(nn);
  auto c = std::make_shared<std::vector<T>>(nn);
  fill(*a, 1);
  fill(*b, 2);
  const Api* blas = api();
  blas->set_num_threads(threads);
  constexpr bool kDouble = std::is_same_v<T, double>;
  Descriptor d;
  d.name = kDouble ? "openblas dgemm" : "openblas sgemm";
  d.work = [n](std::uint64_t reps) {
    return Work{2.0 * n * static_cast<double>(n) * n * static_cast<double>(reps), 0};
  };
  d.run = [=](std::uint64_t reps) {
    for (std::uint64_t r = 0; r < reps; ++r) {
      if constexpr (kDouble)
        blas->dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a->data(), n, b->data(), n, 0.0,
                    c->data(), n);
      else
        blas->sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a->data(), n, b->data(), n, 0.0f,
                    c->data(), n);
    }
  };
  // 64 entries against a double-precision dot product.
  d.verify = [=]() -> Result<void> {
    const double tol = (kDouble ? 1e-10 : 1e-4) * std::sqrt(static_cast<double>(n)) * 4;
    for (int s = 0; s < 64; ++s) {
      int i = (s * 7919) % n, j = (s * 104729 + 13) % n;
      double want = 0;
      for (int k = 0; k < n; ++k)
        want += static_cast<double>((*a)[static_cast<std::size_t>(i) * n + k]) *
                static_cast<double>((*b)[static_cast<std::size_t>(k) * n + j]);
      double got = static_cast<double>((*c)[static_cast<std::size_t>(i) * n + j]);
      if (!(std::fabs(got - want) <= tol)) return make_error(Errc::internal, "C entry differs from the dot product");
    }
    return {};
  };
  RunnerOptions ro;
  ro.min_sample_s = o.quick ? 0.05 : 0.5;
  ro.samples = o.quick ? 3 : 5;
  auto m = run_benchmark(d, ro);
  if (!m) return make_error(m.error());
  ComputeResult r;
  r.precision = kDouble ? Precision::fp64 : Precision::fp32;
  r.unit = kDouble ? "openblas_dgemm" : "openblas_sgemm";
  r.gemm = true;
  r.threads = threads;
  r.flop_per_s = m->flop_per_s;
  r.verified = m->verified;
  r.assumption = "cblas_" + std::string(kDouble ? "d" : "s") + "gemm, row-major NN, n=" + std::to_string(n) +
                 ", 2n^3 FLOP per call, OpenBLAS core " + openblas_core();
  return r;
}

Result<std::vector<ComputeResult>> run_openblas(const Options& o, int threads) {
  std::vector<ComputeResult> out;
  auto d = run_gemm<double>(o, threads);
  if (!d) return make_error(d.error());
  out.push_back(*d);
  auto s = run_gemm<float>(o, threads);
  if (!s) return make_error(s.error());
  out.push_back(*s);
  return out;
}

}  // namespace

const GemmLibrary* openblas_library() {
  static const GemmLibrary lib{"openblas", openblas_version, openblas_core, run_openblas};
  return api() ? &lib : nullptr;
}

}  // namespace rooftop::bench::cpu
