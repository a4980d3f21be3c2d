// Internals of the CPU backend shared by its files: the backend factory,
// the BLAS GEMM hook (present when OpenBLAS was found at build time, wired
// in registry.cpp) and the memory sweep.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/bench.h"
#include "bench/cpu_info.h"
#include "bench/team.h"

namespace rooftop::bench::cpu {

// A library GEMM as the achievable dense rate (OpenBLAS here).
struct GemmLibrary {
  std::string name;                                        // "openblas"
  std::string (*version)() = nullptr;                      // "0.3.21 (core SkylakeX)"
  std::string (*core_name)() = nullptr;                    // "SkylakeX", "Prescott"
  Result<std::vector<ComputeResult>> (*run)(const Options& o, int threads) = nullptr;
};

// The OpenBLAS core type to force when the library mis-detected this CPU
// (OpenBLAS 0.3.21 calls Emerald Rapids "Prescott" and runs 5-6x slow,
// OpenMathLib/OpenBLAS#4267); nullopt when the detected core is fine.
std::optional<std::string> suggest_openblas_coretype(const std::string& core_name, const CpuFeatures& f);

// OpenBLAS, defined in blas/openblas_gemm.cpp, which is compiled only when
// CMake found OpenBLAS; referenced only from registry.cpp.
// Null when OpenBLAS cannot be loaded at run time.
const GemmLibrary* openblas_library();

// `lib` may be null (no BLAS built in).
std::unique_ptr<Backend> make_cpu_backend(const GemmLibrary* lib);

// The working-set sweep (cpu_memory.cpp) on a team pinned one thread per core.
Result<std::vector<MemoryPoint>> memory_sweep(const Options& o, const Environment& env,
                                              const std::vector<int>& cpus);

}  // namespace rooftop::bench::cpu
