// The build facts come from CMake as definitions on this file only
// (app/CMakeLists.txt), so a changed option rebuilds one file.
#include "version.h"

#include <fmt/format.h>

#include "bench/bench.h"

namespace rooftop::app {

std::string version_text() {
  std::string bench_backends;
  for (const std::string& b : bench::built_backends()) bench_backends += (bench_backends.empty() ? "" : ", ") + b;
  std::string collectives = bench::have_mpi() ? "MPI (Open MPI, dlopened when a collective runs)" : "none";
  if (bench::have_nccl()) collectives += ", NCCL";
  return fmt::format(
      "rooftop {}\n"
      "build: {} {}, {}, sanitizers: {}, CUDA: {}\n"
      "benchmark backends: {}\n"
      "collectives: {}\n"
      "GEMM: {}\n"
      "monitor backends (dlopened at run time when the driver library is present): NVML (NVIDIA), ROCm SMI (AMD), "
      "DCMI (Ascend), /proc\n",
      ROOFTOP_VERSION, ROOFTOP_BUILD_TYPE, ROOFTOP_BUILD_COMPILER, ROOFTOP_BUILD_SYSTEM,
      ROOFTOP_BUILD_SANITIZERS[0] ? ROOFTOP_BUILD_SANITIZERS : "none", ROOFTOP_BUILD_CUDA, bench_backends, collectives,
      ROOFTOP_BUILD_OPENBLAS);
}

}  // namespace rooftop::app
