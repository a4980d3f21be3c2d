// The one explicit list of benchmark backends (ggml style). The CPU backend
// is always built; CUDA only with -DROOFTOP_CUDA=ON; MPI collectives and the
// OpenBLAS GEMM when CMake found them. This is the only file with #if on
// build options.
#include <cstdlib>

#include "bench/backends/cpu_backend.h"
#include "bench/bench.h"
#include "bench/collective.h"
#include "core/text.h"

#if ROOFTOP_HAVE_CUDA
#include "bench/cuda/cuda_backend.h"
#endif

namespace rooftop::bench {

std::vector<std::string> built_backends() {
  std::vector<std::string> out = {"cpu"};
#if ROOFTOP_HAVE_CUDA
  out.emplace_back("cuda");
#endif
  return out;
}

bool have_mpi() { return ROOFTOP_HAVE_MPI != 0; }
bool have_nccl() { return ROOFTOP_HAVE_NCCL != 0; }

Result<std::vector<CollectiveResult>> collective_worker(const Options& o, int* rank) {
#if ROOFTOP_HAVE_MPI
  return run_mpi_worker(o, rank);
#else
  (void)o;
  *rank = 0;
  return make_error(Errc::unsupported, "MPI missing: this rooftop was built without MPI (install libopenmpi-dev and rebuild)",
                    "collective");
#endif
}

std::optional<std::string> openblas_coretype_fix() {
#if ROOFTOP_HAVE_OPENBLAS
  if (const cpu::GemmLibrary* lib = cpu::openblas_library())
    return cpu::suggest_openblas_coretype(lib->core_name(), cpu_features());
  return std::nullopt;
#else
  return std::nullopt;
#endif
}

std::map<std::string, std::string> library_versions() {
  std::map<std::string, std::string> out;
#if ROOFTOP_HAVE_OPENBLAS
  if (const cpu::GemmLibrary* lib = cpu::openblas_library()) out["openblas"] = lib->version();
#endif
#if ROOFTOP_HAVE_MPI
  out["mpi"] = mpi_library_version();
#endif
#if ROOFTOP_HAVE_CUDA
  for (const auto& [k, v] : cuda::library_versions()) out[k] = v;
#endif
  return out;
}

Result<std::unique_ptr<Backend>> open_backend(std::string_view device, Options& o) {
  std::string d = to_lower(device);
  if (d == "cpu") {
#if ROOFTOP_HAVE_OPENBLAS
    const cpu::GemmLibrary* lib = cpu::openblas_library();
#else
    const cpu::GemmLibrary* lib = nullptr;
#endif
    std::unique_ptr<Backend> b = cpu::make_cpu_backend(lib);
    return b;
  }
  if (d == "cuda" || starts_with(d, "cuda:")) {
    int index = 0;
    if (d.size() > 5) {
      auto v = parse_int(d.substr(5));
      if (!v || *v < 0) return make_error(Errc::invalid_input, "bad CUDA device '" + std::string(device) + "' (use cuda:N)", "--device");
      index = static_cast<int>(*v);
    }
    o.device = index;
#if ROOFTOP_HAVE_CUDA
    return cuda::make_backend();
#else
    return make_error(Errc::unsupported,
                      "this rooftop was built without CUDA; rebuild with -DROOFTOP_CUDA=ON (needs nvcc)", "--device");
#endif
  }
  return make_error(Errc::invalid_input, "unknown device '" + std::string(device) + "' (use cpu or cuda:N)", "--device");
}

}  // namespace rooftop::bench
