// Stands in for nccl_allreduce.cu when NCCL was not found at build time.
#include "bench/cuda/cuda_internal.h"

namespace rooftop::bench::cuda {

Result<std::vector<CollectiveResult>> nccl_allreduce(const Options&) {
  return make_error(Errc::unsupported, "this rooftop was built without NCCL (not found next to the CUDA toolkit)",
                    "collective");
}

std::string nccl_version() { return "not built in"; }

}  // namespace rooftop::bench::cuda
