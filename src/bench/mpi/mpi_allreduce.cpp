// The MPI all-reduce worker, run by every rank under mpirun: a size sweep
// with nccl-tests timing (warm-up, a pipelined loop of `iters` calls between
// barriers, time averaged over ranks) and a data check on every size.
// Compiled only when CMake found Open MPI's header. libmpi itself is
// dlopened when a collective runs (or its version is asked for), not linked:
// the binary then starts without Open MPI installed, and other commands
// (the monitor daemon above all) do not carry its ~1 MB of resident pages.
// The predefined handles (MPI_COMM_WORLD, MPI_FLOAT, MPI_SUM ...) are the
// addresses of Open MPI's ompi_mpi_* objects, which is what mpi.h's macros
// expand to; MPI_IN_PLACE is a constant there.
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "bench/collective.h"
#include "bench/runner.h"
#include "core/dynlib.h"
#include "core/text.h"

#ifndef OPEN_MPI
#error "the MPI worker loads Open MPI at run time; CMake enables it only for Open MPI's mpi.h"
#endif

namespace rooftop::bench {
namespace {

struct Mpi {
  explicit Mpi(DynLib l) : lib(std::move(l)) {}
  DynLib lib;
  decltype(&::MPI_Initialized) initialized = nullptr;
  decltype(&::MPI_Init) init = nullptr;
  decltype(&::MPI_Finalize) finalize = nullptr;
  decltype(&::MPI_Comm_rank) comm_rank = nullptr;
  decltype(&::MPI_Comm_size) comm_size = nullptr;
  decltype(&::MPI_Barrier) barrier = nullptr;
  decltype(&::MPI_Wtime) wtime = nullptr;
  decltype(&::MPI_Allreduce) allreduce = nullptr;
  decltype(&::MPI_Get_library_version) library_version = nullptr;
  MPI_Comm world = nullptr;
  MPI_Datatype f32 = nullptr, f64 = nullptr, i32 = nullptr;
  MPI_Op sum = nullptr, max = nullptr, min = nullptr;
};

template <typename Handle>
Result<void> handle(const DynLib& lib, Handle& out, const char* symbol) {
  out = reinterpret_cast<Handle>(lib.find_raw({symbol}));
  if (out) return {};
  return make_error(Errc::unsupported, std::string("Open MPI does not export ") + symbol, lib.path());
}

Result<std::unique_ptr<Mpi>> load() {
  // RTLD_GLOBAL: Open MPI's components (dlopened by MPI_Init) resolve symbols from libmpi.
  Result<DynLib> lib = DynLib::open({"libmpi.so.40", "libmpi.so"}, true);
  if (!lib)
    return make_error(Errc::unsupported, "MPI missing: cannot load Open MPI's libmpi (install openmpi-bin): " +
                                             lib.error().message, "collective");
  auto m = std::make_unique<Mpi>(std::move(*lib));
  const DynLib& l = m->lib;
  ROOFTOP_TRY(l.require(m->initialized, {"MPI_Initialized"}));
  ROOFTOP_TRY(l.require(m->init, {"MPI_Init"}));
  ROOFTOP_TRY(l.require(m->finalize, {"MPI_Finalize"}));
  ROOFTOP_TRY(l.require(m->comm_rank, {"MPI_Comm_rank"}));
  ROOFTOP_TRY(l.require(m->comm_size, {"MPI_Comm_size"}));
  ROOFTOP_TRY(l.require(m->barrier, {"MPI_Barrier"}));
  ROOFTOP_TRY(l.require(m->wtime, {"MPI_Wtime"}));
  ROOFTOP_TRY(l.require(m->allreduce, {"MPI_Allreduce"}));
  ROOFTOP_TRY(l.require(m->library_version, {"MPI_Get_library_version"}));
  ROOFTOP_TRY(handle(l, m->world, "ompi_mpi_comm_world"));
  ROOFTOP_TRY(handle(l, m->f32, "ompi_mpi_float"));
  ROOFTOP_TRY(handle(l, m->f64, "ompi_mpi_double"));
  ROOFTOP_TRY(handle(l, m->i32, "ompi_mpi_int"));
  ROOFTOP_TRY(handle(l, m->sum, "ompi_mpi_op_sum"));
  ROOFTOP_TRY(handle(l, m->max, "ompi_mpi_op_max"));
  ROOFTOP_TRY(handle(l, m->min, "ompi_mpi_op_min"));
  return m;
}

// Loaded once per process and kept (MPI must not be unloaded after MPI_Init).
Result<const Mpi*> mpi() {
  static Result<std::unique_ptr<Mpi>> m = load();
  if (!m) return make_error(m.error());
  return static_cast<const Mpi*>(m->get());
}

}  // namespace

std::string mpi_library_version() {
  Result<const Mpi*> m = mpi();
  if (!m) return "not loadable";
  char v[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  (*m)->library_version(v, &len);
  std::string s(v, static_cast<std::size_t>(std::max(0, len)));
  auto nl = s.find_first_of("\n,");
  return trim(s.substr(0, nl));
}

namespace {

double timed_loop(const Mpi& m, const std::vector<float>& send, std::vector<float>& recv, int iters) {
  m.barrier(m.world);
  double t0 = m.wtime();
  for (int i = 0; i < iters; ++i)
    m.allreduce(send.data(), recv.data(), static_cast<int>(send.size()), m.f32, m.sum, m.world);
  return (m.wtime() - t0) / iters;
}

}  // namespace

Result<std::vector<CollectiveResult>> run_mpi_worker(const Options& o, int* rank_out) {
  Result<const Mpi*> loaded = mpi();
  if (!loaded) return make_error(loaded.error());
  const Mpi& m = **loaded;
  int initialized = 0;
  m.initialized(&initialized);
  if (!initialized) m.init(nullptr, nullptr);
  int rank = 0, n = 1;
  m.comm_rank(m.world, &rank);
  m.comm_size(m.world, &n);
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
    double est = timed_loop(m, send, recv, 1);  // warm-up and estimate
    m.allreduce(MPI_IN_PLACE, &est, 1, m.f64, m.max, m.world);
    int iters = static_cast<int>(std::clamp(target_s / std::max(est, 1e-9), 1.0, o.quick ? 50.0 : 1000.0));
    std::vector<double> times;
    for (int s = 0; s < samples; ++s) {
      double t = timed_loop(m, send, recv, iters);
      m.allreduce(MPI_IN_PLACE, &t, 1, m.f64, m.sum, m.world);
      times.push_back(t / n);
    }
    int ok = 1;
    for (std::size_t i = 0; i < count; i += std::max<std::size_t>(1, count / 4096))
      if (recv[i] != want) ok = 0;
    if (recv[count - 1] != want) ok = 0;
    m.allreduce(MPI_IN_PLACE, &ok, 1, m.i32, m.min, m.world);
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
  m.finalize();
  if (!all_ok) return make_error(Errc::internal, "all-reduce result check failed (expected every element = n(n+1)/2)");
  return out;
}

}  // namespace rooftop::bench
