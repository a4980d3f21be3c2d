// Shared between the CUDA backend's files (host-only declarations).
#pragma once

#include <string>
#include <vector>

#include "bench/bench.h"

namespace rooftop::bench::cuda {

// All-reduce over every visible GPU from one process (nccl-tests -g N
// style); Errc::unsupported when NCCL was not found at build time.
Result<std::vector<CollectiveResult>> nccl_allreduce(const Options& o);
std::string nccl_version();

}  // namespace rooftop::bench::cuda
