// Collective benchmarks: the nccl-tests definitions of algorithm and bus
// bandwidth (NVIDIA/nccl-tests doc/PERFORMANCE.md), the usual eta, the
// all-reduce size sweep, and how `rooftop bench collective` runs itself under
// mpirun (a launcher starts `mpirun -np N rooftop bench collective`; the
// ranks see the MPI environment and act as workers; rank 0 writes its rows
// to a file the launcher reads back).
#pragma once

#include <string>
#include <vector>

#include "bench/bench.h"

namespace rooftop::bench {

enum class CollectiveOp { all_reduce, reduce_scatter, all_gather, all_to_all, broadcast, reduce };

// algbw = S / t (bytes/s).
double algbw(double bytes, double time_s);
// busbw = algbw x factor: all-reduce 2(n-1)/n; reduce-scatter, all-gather,
// all-to-all (n-1)/n; broadcast and reduce 1.
double busbw_factor(CollectiveOp op, int ranks);
double busbw(CollectiveOp op, int ranks, double algbw_bytes_per_s);
// The bandwidth utilisation eta = (n-1)/n x B_effective / B_max with
// B_effective = algbw (what the application sees) and B_max the link peak.
double eta(int ranks, double algbw_bytes_per_s, double link_bytes_per_s);

// Fills algbw/busbw/eta from bytes, ranks and the median time.
void finish_allreduce(CollectiveResult& r, double link_bytes_per_s);

// Buffer sizes: 1 KiB .. 256 MiB doubling (quick: 1 KiB .. 1 MiB, x4).
std::vector<double> allreduce_sizes(bool quick);

// The rows rank 0 hands to the launcher: one line per size, tab-separated
// "backend bytes ranks verified t1,t2,..." (times in seconds).
std::string to_tsv(const std::vector<CollectiveResult>& rows);
Result<std::vector<CollectiveResult>> from_tsv(const std::string& text, double link_bytes_per_s);

// True when this process was started by mpirun/srun (it is a rank).
bool inside_mpi_launch();

// The mpirun command line for `ranks` processes running `self args...`
// (Open MPI: shared-memory transport, loopback out-of-band, oversubscribe
// when there are fewer cores than ranks).
std::vector<std::string> mpirun_argv(const std::string& mpirun, int ranks, int cores, const std::string& self,
                                     const std::vector<std::string>& args);

// Runs the launcher: mpirun on this binary with `args` plus a hidden
// --collective-out FILE; returns rank 0's rows. No mpirun on PATH is
// Errc::unsupported ("MPI missing").
Result<std::vector<CollectiveResult>> launch_mpi(const Options& o, int cores, const std::vector<std::string>& args);

// The worker (mpi/mpi_allreduce.cpp, only in builds with MPI). Fills
// `rank`; only rank 0's rows are complete.
Result<std::vector<CollectiveResult>> run_mpi_worker(const Options& o, int* rank);
std::string mpi_library_version();
// What callers use (registry.cpp): the worker, or Errc::unsupported in a
// build without MPI.
Result<std::vector<CollectiveResult>> collective_worker(const Options& o, int* rank);

}  // namespace rooftop::bench
