// The CUDA benchmark backend, declared without any CUDA type so that only
// registry.cpp includes it (under ROOFTOP_HAVE_CUDA). A machine without a
// GPU or driver gets Errc::unsupported from describe(), never a crash.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "bench/bench.h"

namespace rooftop::bench::cuda {

std::unique_ptr<Backend> make_backend();
// "cuda_runtime", "cublas", "nccl" versions linked in.
std::map<std::string, std::string> library_versions();

}  // namespace rooftop::bench::cuda
