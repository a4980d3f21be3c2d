// NCCL all-reduce over every visible GPU from one process (like nccl-tests
// with -g N): warm-up, a pipelined loop of `iters` calls per sample, host
// timer after a stream synchronise, data check on every size.
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "bench/collective.h"
#include "bench/cuda/cuda_internal.h"
#include "bench/runner.h"

namespace rooftop::bench::cuda {
namespace {

__global__ void fill_float(float* p, float v, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    p[i] = v;
}

}  // namespace

std::string nccl_version() {
  int v = 0;
  ncclGetVersion(&v);
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

Result<std::vector<CollectiveResult>> nccl_allreduce(const Options& o) {
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0)
    return make_error(Errc::unsupported, "no CUDA device for NCCL", "--device");
  std::vector<ncclComm_t> comms(static_cast<std::size_t>(ndev));
  if (ncclCommInitAll(comms.data(), ndev, nullptr) != ncclSuccess)
    return make_error(Errc::io, "ncclCommInitAll failed");
  std::vector<cudaStream_t> streams(comms.size());
  std::vector<float*> send(comms.size()), recv(comms.size());
  const std::vector<double> sizes = allreduce_sizes(o.quick);
  const std::size_t max_count = static_cast<std::size_t>(sizes.back() / 4);
  for (int d = 0; d < ndev; ++d) {
    cudaSetDevice(d);
    cudaStreamCreate(&streams[d]);
    cudaMalloc(&send[d], max_count * 4);
    cudaMalloc(&recv[d], max_count * 4);
    fill_float<<<1024, 256, 0, streams[d]>>>(send[d], static_cast<float>(d + 1), max_count);
  }
  auto launch = [&](std::size_t count, int iters) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) {
      ncclGroupStart();
      for (int d = 0; d < ndev; ++d) ncclAllReduce(send[d], recv[d], count, ncclFloat, ncclSum, comms[d], streams[d]);
      ncclGroupEnd();
    }
    for (int d = 0; d < ndev; ++d) {
      cudaSetDevice(d);
      cudaStreamSynchronize(streams[d]);
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / iters;
  };
  std::vector<CollectiveResult> out;
  const float want = static_cast<float>(ndev) * (ndev + 1) / 2;
  for (std::size_t si = 0; si < sizes.size(); ++si) {
    const std::size_t count = static_cast<std::size_t>(sizes[si] / 4);
    if (o.progress) o.progress(static_cast<double>(si) / sizes.size(), "nccl all-reduce");
    double est = launch(count, 1);
    int iters = static_cast<int>(std::clamp((o.quick ? 0.002 : 0.02) / std::max(est, 1e-9), 1.0, 1000.0));
    std::vector<double> times;
    for (int s = 0; s < (o.quick ? 3 : 5); ++s) times.push_back(launch(count, iters));
    bool ok = true;
    for (int d = 0; d < ndev; ++d) {
      float first = 0, last = 0;
      cudaSetDevice(d);
      cudaMemcpy(&first, recv[d], 4, cudaMemcpyDeviceToHost);
      cudaMemcpy(&last, recv[d] + count - 1, 4, cudaMemcpyDeviceToHost);
      ok = ok && first == want && last == want;
    }
    CollectiveResult r;
    r.backend = "nccl";
    r.bytes = static_cast<double>(count * 4);
    r.ranks = ndev;
    r.time_s = make_stats(times);
    r.verified = ok;
    finish_allreduce(r, o.link_bytes_per_s);
    out.push_back(std::move(r));
  }
  for (int d = 0; d < ndev; ++d) {
    cudaSetDevice(d);
    cudaFree(send[d]);
    cudaFree(recv[d]);
    cudaStreamDestroy(streams[d]);
    ncclCommDestroy(comms[d]);
  }
  for (const auto& r : out)
    if (!r.verified) return make_error(Errc::internal, "NCCL all-reduce result check failed");
  return out;
}

}  // namespace rooftop::bench::cuda
