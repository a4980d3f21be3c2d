// Factories of every telemetry backend; registry.cpp is the one list that
// calls them. Internal to the telemetry module.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "telemetry/telemetry.h"

namespace rooftop::telemetry {

// Host CPU, memory, load, disk and network from `root`/proc (and /sys/block),
// reported under `node_name`, or the kernel's host name when that is empty.
std::unique_ptr<Backend> make_proc_backend(const std::string& root, const std::string& node_name);
// NVIDIA through libnvidia-ml.so.1 (or `library` when not empty), dlopened.
std::unique_ptr<Backend> make_nvml_backend(const std::string& library);
// AMD through librocm_smi64.so, dlopened.
std::unique_ptr<Backend> make_rocm_backend();
// Huawei Ascend through libdcmi.so, dlopened.
std::unique_ptr<Backend> make_ascend_backend();
// Replays a trace file; `clock_s` gives monotonic seconds (steady clock when empty).
std::unique_ptr<Backend> make_fake_backend(const std::string& trace_path, std::function<double()> clock_s);

}  // namespace rooftop::telemetry
