// The MPI all-reduce worker, run by every rank under mpirun: a size sweep
// with nccl-tests timing (warm-up, a pipelined loop of `iters` calls between
// barriers, time averaged over ranks) and a data check on every size.
// Compiled only when CMake found MPI.
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "bench/collective.h"
#include "bench/runner.h"
#include "core/text.h"

namespace rooftop::bench {

std::string mpi_library_version() {
  char v[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(v, &len);
  std::string s(v, static_cast<std::size_t>(std::max(0, len)));
  auto nl = s.find_first_of("\n,");
  return trim(s.substr(0, nl));
}

namespace {

double timed_loop(const std::vector<float>& send, std::vector<float>& recv, int iters) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i)
    MPI_Allreduce(send.data(), recv.data(), static_cast<int>(send.size()), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  return (MPI_Wtime() - t0) / iters;
}

}  // namespace

Result<std::vector<CollectiveResult>> run_mpi_worker(const Options& o, int* rank_out) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) MPI_Init(nullptr, nullptr);
  int rank = 0, n = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  *rank_out = rank;
  std::vector<CollectiveResult> out;
  const std::vector<double> sizes = allreduce_sizes(o.quick);
  const double target_s = o.quick ? 0.002 : 0.02;
  const int samples = o.quick ? 3 : 5;
  const float want = static_cast<float>(n) * (n + 1) / 2;  // sum of rank+1
  bool all_ok = true;
  for (std::size_t si = 0; si < sizes.size(); ++si) {
    const std::size_t count = static_cast<std::size_t>(sizes[si] / sizeof(float));
    std::vector<float> send(count, static_cast<float>(rank + 1)), recv(count, 0.0f);
    if (rank == 0 && o.progress) o.progress(static_cast<double>(si) / sizes.size(), "all-reduce " + iec_bytes(sizes[si]));
    double est = timed_loop(send, recv, 1);  // warm-up and estimate
    MPI_Allreduce(MPI_IN_PLACE, &est, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int iters = static_cast<int>(std::clamp(target_s / std::max(est, 1e-9), 1.0, o.quick ? 50.0 : 1000.0));
    std::vector<double> times;
    for (int s = 0; s < samples; ++s) {
      double t = timed_loop(send, recv, iters);
      MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      times.push_back(t / n);
    }
    int ok = 1;
    for (std::size_t i = 0; i < count; i += std::max<std::size_t>(1, count / 4096))
      if (recv[i] != want) ok = 0;
    if (recv[count - 1] != want) ok = 0;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    all_ok = all_ok && ok;
    CollectiveResult r;
    r.backend = "mpi";
    r.bytes = static_cast<double>(count * sizeof(float));
    r.ranks = n;
    r.time_s = make_stats(times);
    r.verified = ok == 1;
    finish_allreduce(r, o.link_bytes_per_s);
    out.push_back(std::move(r));
  }
  MPI_Finalize();
  if (!all_ok) return make_error(Errc::internal, "all-reduce result check failed (expected every element = n(n+1)/2)");
  return out;
}

}  // namespace rooftop::bench
