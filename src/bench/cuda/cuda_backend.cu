// The CUDA backend: cuBLAS GEMM per precision (fp64, fp32, tf32, fp16,
// bf16, int8 through cublasGemmEx; fp8 e4m3 through cublasLtMatmul) as the
// achievable dense rate, a grid-stride triad for device-memory bandwidth,
// and pinned host<->device copies. Inputs are small integers (-1, 0, 1), so
// every precision gives exact sums and each GEMM is checked entry by entry
// against a host dot product.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "bench/cuda/cuda_backend.h"
#include "bench/cuda/cuda_internal.h"
#include "bench/runner.h"

namespace rooftop::bench::cuda {
namespace {

Result<void> check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return {};
  return make_error(Errc::io, std::string(what) + ": " + cudaGetErrorString(e));
}
Result<void> check(cublasStatus_t s, const char* what) {
  if (s == CUBLAS_STATUS_SUCCESS) return {};
  return make_error(Errc::io, std::string(what) + ": cuBLAS status " + std::to_string(static_cast<int>(s)));
}

float pattern_a(int i, int k) { return static_cast<float>((i + k) % 3 - 1); }
float pattern_b(int k, int j) { return static_cast<float>((k + 2 * j) % 3 - 1); }

// A device buffer freed on scope exit.
struct DeviceBuffer {
  void* p = nullptr;
  ~DeviceBuffer() { if (p) cudaFree(p); }
};

template <typename T>
void fill_host(std::vector<T>& v, int rows, int cols, bool is_a) {
  // Column-major (cuBLAS): element (r, c) at r + c*rows.
  for (int c = 0; c < cols; ++c)
    for (int r = 0; r < rows; ++r) {
      float x = is_a ? pattern_a(r, c) : pattern_b(r, c);
      v[static_cast<std::size_t>(r) + static_cast<std::size_t>(c) * rows] = static_cast<T>(x);
    }
}

struct GemmCase {
  Precision precision;
  const char* unit;
  cudaDataType_t ab, c;
  cublasComputeType_t compute;
  int elem_ab, elem_c;
};

__global__ void triad(double* a, const double* b, const double* c, double s, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    a[i] = b[i] + s * c[i];
}

__global__ void fill(double* p, double v, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    p[i] = v;
}

// Reads back C (column-major, m x n, float or int32) and compares 64 entries.
Result<void> verify_gemm(const void* dc, int m, int n, int k, bool int_out, bool a_transposed) {
  (void)a_transposed;
  std::vector<float> host_f;
  std::vector<std::int32_t> host_i;
  std::size_t count = static_cast<std::size_t>(m) * n;
  if (int_out) host_i.resize(count); else host_f.resize(count);
  ROOFTOP_TRY(check(cudaMemcpy(int_out ? static_cast<void*>(host_i.data()) : static_cast<void*>(host_f.data()), dc,
                               count * 4, cudaMemcpyDeviceToHost), "copy C back"));
  for (int s = 0; s < 64; ++s) {
    int i = (s * 7919) % m, j = (s * 104729 + 13) % n;
    double want = 0;
    for (int kk = 0; kk < k; ++kk) want += pattern_a(i, kk) * pattern_b(kk, j);
    std::size_t at = static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * m;
    double got = int_out ? host_i[at] : host_f[at];
    if (got != want) return make_error(Errc::internal, "GEMM entry differs from the host dot product");
  }
  return {};
}

class CudaBackend final : public Backend {
 public:
  std::string_view name() const override { return "cuda"; }

  Result<Environment> describe(const Options& o) override {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0)
      return make_error(Errc::unsupported, std::string("no CUDA device: ") + (e == cudaSuccess ? "none found" : cudaGetErrorString(e)),
                        "--device");
    if (o.device >= count)
      return make_error(Errc::invalid_input, "cuda:" + std::to_string(o.device) + " does not exist (" +
                                                 std::to_string(count) + " device(s))", "--device");
    ROOFTOP_TRY(check(cudaSetDevice(o.device), "cudaSetDevice"));
    cudaDeviceProp p{};
    ROOFTOP_TRY(check(cudaGetDeviceProperties(&p, o.device), "cudaGetDeviceProperties"));
    env_.device = "cuda:" + std::to_string(o.device) + " " + p.name;
    env_.cpu_model = p.name;
    env_.memory_bytes = static_cast<double>(p.totalGlobalMem);
    env_.libraries = library_versions();
    env_.threads = 1;
    return env_;
  }

  Result<std::vector<ComputeResult>> compute(const Options& o, Report&) override {
    const GemmCase cases[] = {
        {Precision::fp64, "cublas", CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, 8, 8},
        {Precision::fp32, "cublas", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 4, 4},
        {Precision::tf32, "cublas", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4, 4},
        {Precision::fp16, "cublas", CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 2, 4},
        {Precision::bf16, "cublas", CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, 2, 4},
        {Precision::int8, "cublas", CUDA_R_8I, CUDA_R_32I, CUBLAS_COMPUTE_32I, 1, 4},
    };
    cublasHandle_t h = nullptr;
    ROOFTOP_TRY(check(cublasCreate(&h), "cublasCreate"));
    std::vector<ComputeResult> out;
    const int n = o.quick ? 1024 : 8192;
    int step = 0;
    for (const GemmCase& gc : cases) {
      if (o.progress) o.progress(step++ / 7.0, std::string(to_string(gc.precision)) + " gemm");
      auto r = run_gemm(h, gc, n, o.quick);
      if (!r) { cublasDestroy(h); return make_error(r.error()); }
      out.push_back(*r);
    }
    cublasDestroy(h);
    auto fp8 = run_fp8(n, o.quick);
    if (fp8) out.push_back(*fp8);
    return out;
  }

  Result<std::vector<MemoryPoint>> memory(const Options& o, Report&) override {
    std::vector<MemoryPoint> out;
    const std::size_t n = (o.quick ? 32u : 256u) << 20 >> 3;  // doubles per array
    DeviceBuffer a, b, c;
    ROOFTOP_TRY(check(cudaMalloc(&a.p, n * 8), "cudaMalloc"));
    ROOFTOP_TRY(check(cudaMalloc(&b.p, n * 8), "cudaMalloc"));
    ROOFTOP_TRY(check(cudaMalloc(&c.p, n * 8), "cudaMalloc"));
    auto* da = static_cast<double*>(a.p);
    auto* db = static_cast<double*>(b.p);
    auto* dc = static_cast<double*>(c.p);
    fill<<<1024, 256>>>(db, 1.0, n);
    fill<<<1024, 256>>>(dc, 2.0, n);
    RunnerOptions ro;
    ro.min_sample_s = o.quick ? 0.02 : 0.2;
    ro.samples = o.quick ? 3 : 7;
    Descriptor d;
    d.name = "device triad";
    d.work = [n](std::uint64_t reps) { return Work{0, 24.0 * n * reps}; };
    d.run = [=](std::uint64_t reps) {
      for (std::uint64_t r = 0; r < reps; ++r) triad<<<4096, 256>>>(da, db, dc, 0.5, n);
      cudaDeviceSynchronize();
    };
    d.verify = [=]() -> Result<void> {
      double v[2] = {};
      ROOFTOP_TRY(check(cudaMemcpy(&v[0], da, 8, cudaMemcpyDeviceToHost), "copy back"));
      ROOFTOP_TRY(check(cudaMemcpy(&v[1], da + n - 1, 8, cudaMemcpyDeviceToHost), "copy back"));
      if (v[0] != 2.0 || v[1] != 2.0) return make_error(Errc::internal, "triad result is not b + 0.5 c");
      return {};
    };
    auto m = run_benchmark(d, ro);
    if (!m) return make_error(m.error());
    out.push_back(point("device_triad", 24.0 * n, *m));
    // Host <-> device over the host link, from pinned memory.
    void* host = nullptr;
    ROOFTOP_TRY(check(cudaMallocHost(&host, n * 8), "cudaMallocHost"));
    for (bool h2d : {true, false}) {
      Descriptor x;
      x.name = h2d ? "h2d" : "d2h";
      x.work = [n](std::uint64_t reps) { return Work{0, 8.0 * n * reps}; };
      x.run = [=](std::uint64_t reps) {
        for (std::uint64_t r = 0; r < reps; ++r)
          cudaMemcpy(h2d ? static_cast<void*>(db) : host, h2d ? host : static_cast<void*>(db), n * 8,
                     h2d ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
      };
      x.verify = [] { return check(cudaGetLastError(), "copy"); };
      auto mm = run_benchmark(x, ro);
      if (!mm) { cudaFreeHost(host); return make_error(mm.error()); }
      out.push_back(point(h2d ? "h2d" : "d2h", 8.0 * n, *mm));
    }
    cudaFreeHost(host);
    return out;
  }

  Result<std::vector<CollectiveResult>> collective(const Options& o, Report&) override { return nccl_allreduce(o); }

 private:
  static MemoryPoint point(const char* kernel, double ws, const Measurement& m) {
    MemoryPoint p;
    p.kernel = kernel;
    p.threads = 1;
    p.working_set_bytes = ws;
    p.level = std::string(kernel) == "device_triad" ? "DRAM" : "host_link";
    p.bytes_per_s = m.bytes_per_s;
    p.verified = m.verified;
    return p;
  }

  Result<ComputeResult> run_gemm(cublasHandle_t h, const GemmCase& gc, int n, bool quick) {
    const std::size_t nn = static_cast<std::size_t>(n) * n;
    DeviceBuffer a, b, c;
    ROOFTOP_TRY(check(cudaMalloc(&a.p, nn * gc.elem_ab), "cudaMalloc"));
    ROOFTOP_TRY(check(cudaMalloc(&b.p, nn * gc.elem_ab), "cudaMalloc"));
    ROOFTOP_TRY(check(cudaMalloc(&c.p, nn * gc.elem_c), "cudaMalloc"));
    ROOFTOP_TRY(upload(a.p, gc.ab, n, true));
    ROOFTOP_TRY(upload(b.p, gc.ab, n, false));
    const bool is_int = gc.precision == Precision::int8;
    const double one_d = 1, zero_d = 0;
    const float one_f = 1, zero_f = 0;
    const std::int32_t one_i = 1, zero_i = 0;
    const void* alpha = gc.compute == CUBLAS_COMPUTE_64F ? static_cast<const void*>(&one_d)
                        : is_int ? static_cast<const void*>(&one_i) : static_cast<const void*>(&one_f);
    const void* beta = gc.compute == CUBLAS_COMPUTE_64F ? static_cast<const void*>(&zero_d)
                       : is_int ? static_cast<const void*>(&zero_i) : static_cast<const void*>(&zero_f);
    cublasStatus_t last = CUBLAS_STATUS_SUCCESS;
    // int8 takes the "TN" layout; the test pattern is symmetric, so A^T = A.
    const cublasOperation_t ta = is_int ? CUBLAS_OP_T : CUBLAS_OP_N;
    void *pa = a.p, *pb = b.p, *pc = c.p;
    Descriptor d;
    d.name = std::string(to_string(gc.precision)) + " cublas";
    d.work = [n](std::uint64_t reps) { return Work{2.0 * n * double(n) * n * reps, 0}; };
    d.run = [&, pa, pb, pc](std::uint64_t reps) {
      for (std::uint64_t r = 0; r < reps; ++r)
        last = cublasGemmEx(h, ta, CUBLAS_OP_N, n, n, n, alpha, pa, gc.ab, n, pb, gc.ab, n, beta, pc, gc.c, n,
                            gc.compute, CUBLAS_GEMM_DEFAULT);
      cudaDeviceSynchronize();
    };
    d.verify = [&, pc]() -> Result<void> {
      ROOFTOP_TRY(check(last, "cublasGemmEx"));
      if (gc.c == CUDA_R_64F) return make_error(Errc::internal, "unexpected");
      return verify_gemm(pc, n, n, n, is_int, false);
    };
    if (gc.c == CUDA_R_64F) d.verify = [&, pc, n]() -> Result<void> {
      ROOFTOP_TRY(check(last, "cublasGemmEx"));
      std::vector<double> host(static_cast<std::size_t>(n) * n);
      ROOFTOP_TRY(check(cudaMemcpy(host.data(), pc, host.size() * 8, cudaMemcpyDeviceToHost), "copy C back"));
      for (int s = 0; s < 64; ++s) {
        int i = (s * 7919) % n, j = (s * 104729 + 13) % n;
        double want = 0;
        for (int kk = 0; kk < n; ++kk) want += pattern_a(i, kk) * pattern_b(kk, j);
        if (host[static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * n] != want)
          return make_error(Errc::internal, "GEMM entry differs from the host dot product");
      }
      return {};
    };
    RunnerOptions ro;
    ro.min_sample_s = quick ? 0.02 : 0.3;
    ro.samples = quick ? 3 : 5;
    auto m = run_benchmark(d, ro);
    if (!m) return make_error(m.error());
    ComputeResult r;
    r.precision = gc.precision;
    r.unit = gc.unit;
    r.gemm = true;
    r.flop_per_s = m->flop_per_s;
    r.verified = m->verified;
    r.assumption = "cublasGemmEx n=" + std::to_string(n) + ", 2n^3 FLOP per call; compare with the catalog's dense peak";
    return r;
  }

  static Result<void> upload(void* dst, cudaDataType_t t, int n, bool is_a) {
    const std::size_t nn = static_cast<std::size_t>(n) * n;
    switch (t) {
      case CUDA_R_64F: { std::vector<double> v(nn); fill_host(v, n, n, is_a); return check(cudaMemcpy(dst, v.data(), nn * 8, cudaMemcpyHostToDevice), "upload"); }
      case CUDA_R_32F: { std::vector<float> v(nn); fill_host(v, n, n, is_a); return check(cudaMemcpy(dst, v.data(), nn * 4, cudaMemcpyHostToDevice), "upload"); }
      case CUDA_R_16F: { std::vector<__half> v(nn); fill_host(v, n, n, is_a); return check(cudaMemcpy(dst, v.data(), nn * 2, cudaMemcpyHostToDevice), "upload"); }
      case CUDA_R_16BF: { std::vector<__nv_bfloat16> v(nn); fill_host(v, n, n, is_a); return check(cudaMemcpy(dst, v.data(), nn * 2, cudaMemcpyHostToDevice), "upload"); }
      case CUDA_R_8I: { std::vector<std::int8_t> v(nn); fill_host(v, n, n, is_a); return check(cudaMemcpy(dst, v.data(), nn, cudaMemcpyHostToDevice), "upload"); }
      case CUDA_R_8F_E4M3: { std::vector<__nv_fp8_e4m3> v(nn); fill_host(v, n, n, is_a); return check(cudaMemcpy(dst, v.data(), nn, cudaMemcpyHostToDevice), "upload"); }
      default: return make_error(Errc::internal, "unexpected data type");
    }
  }

  // FP8 (e4m3) needs cuBLASLt and the "TN" layout: A is given transposed.
  // Unsupported GPUs (before Ada/Hopper) answer with a status; then fp8 is
  // simply not reported.
  Result<ComputeResult> run_fp8(int n, bool quick) {
    cublasLtHandle_t lt = nullptr;
    ROOFTOP_TRY(check(cublasLtCreate(&lt), "cublasLtCreate"));
    const std::size_t nn = static_cast<std::size_t>(n) * n;
    DeviceBuffer a, b, c, ws;
    const std::size_t ws_bytes = 32u << 20;
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
    auto cleanup = [&] {
      if (la) cublasLtMatrixLayoutDestroy(la);
      if (lb) cublasLtMatrixLayoutDestroy(lb);
      if (lc) cublasLtMatrixLayoutDestroy(lc);
      if (op) cublasLtMatmulDescDestroy(op);
      cublasLtDestroy(lt);
    };
    auto fail = [&](Result<void> r) { cleanup(); return make_error(r.error()); };
    if (auto r = check(cudaMalloc(&a.p, nn), "cudaMalloc"); !r) return fail(r);
    if (auto r = check(cudaMalloc(&b.p, nn), "cudaMalloc"); !r) return fail(r);
    if (auto r = check(cudaMalloc(&c.p, nn * 4), "cudaMalloc"); !r) return fail(r);
    if (auto r = check(cudaMalloc(&ws.p, ws_bytes), "cudaMalloc"); !r) return fail(r);
    // A^T stored column-major k x m equals A row-major: element (i, k) at k + i*n.
    if (auto r = upload(a.p, CUDA_R_8F_E4M3, n, true); !r) return fail(r);
    if (auto r = upload(b.p, CUDA_R_8F_E4M3, n, false); !r) return fail(r);
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    if (auto r = check(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F), "matmul desc"); !r) return fail(r);
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb);
    cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, n, n, n);
    cublasLtMatrixLayoutCreate(&lb, CUDA_R_8F_E4M3, n, n, n);
    cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, n, n, n);
    const float one = 1, zero = 0;
    cublasStatus_t last = CUBLAS_STATUS_SUCCESS;
    void *pa = a.p, *pb = b.p, *pc = c.p, *pw = ws.p;
    Descriptor d;
    d.name = "fp8 cublasLt";
    d.work = [n](std::uint64_t reps) { return Work{2.0 * n * double(n) * n * reps, 0}; };
    d.run = [&](std::uint64_t reps) {
      for (std::uint64_t r = 0; r < reps; ++r)
        last = cublasLtMatmul(lt, op, &one, pa, la, pb, lb, &zero, pc, lc, pc, lc, nullptr, pw, ws_bytes, 0);
      cudaDeviceSynchronize();
    };
    d.verify = [&]() -> Result<void> {
      ROOFTOP_TRY(check(last, "cublasLtMatmul fp8"));
      return verify_gemm(pc, n, n, n, false, true);
    };
    RunnerOptions ro;
    ro.min_sample_s = quick ? 0.02 : 0.3;
    ro.samples = quick ? 3 : 5;
    auto m = run_benchmark(d, ro);
    cleanup();
    if (!m) return make_error(m.error());
    ComputeResult r;
    r.precision = Precision::fp8;
    r.unit = "cublaslt";
    r.gemm = true;
    r.flop_per_s = m->flop_per_s;
    r.verified = m->verified;
    r.assumption = "cublasLtMatmul e4m3 x e4m3 -> fp32, TN layout, n=" + std::to_string(n);
    return r;
  }

  Environment env_;
};

}  // namespace

std::unique_ptr<Backend> make_backend() { return std::make_unique<CudaBackend>(); }

std::map<std::string, std::string> library_versions() {
  std::map<std::string, std::string> out;
  int rt = 0, drv = 0;
  cudaRuntimeGetVersion(&rt);
  out["cuda_runtime"] = std::to_string(rt / 1000) + "." + std::to_string(rt % 1000 / 10);
  if (cudaDriverGetVersion(&drv) == cudaSuccess && drv > 0)
    out["cuda_driver"] = std::to_string(drv / 1000) + "." + std::to_string(drv % 1000 / 10);
  out["cublas"] = std::to_string(CUBLAS_VER_MAJOR) + "." + std::to_string(CUBLAS_VER_MINOR) + "." +
                  std::to_string(CUBLAS_VER_PATCH);
  out["nccl"] = nccl_version();
  return out;
}

}  // namespace rooftop::bench::cuda
