// Loading what commands take as input, in one place so every command reads
// them the same way: the catalog (embedded + --catalog overlays) and a
// workload reference (zoo id, custom YAML file, or ONNX file).
#pragma once

#include <string>

#include "catalog/catalog.h"
#include "command.h"
#include "model/calibration.h"
#include "model/convergence.h"
#include "model/ranges.h"
#include "onnx/onnx.h"
#include "workload/workload.h"

namespace rooftop::app {

// The embedded catalog with the user's --catalog overlays applied.
Result<catalog::Catalog> load_catalog(const GlobalOptions& global);

// What a model reference carries besides the shape (ONNX input shapes).
struct WorkloadInputs {
  workload::BuildOptions build;
  std::vector<std::string> onnx_inputs;  // "name=1x3x224x224" (ONNX only)
  std::optional<int> onnx_batch;         // --batch for an ONNX batch dimension
};

// The ONNX import options `in` asks for (--input shapes, --batch); errors
// name the bad flag.
Result<onnx::ImportOptions> onnx_options(const WorkloadInputs& in);

// `ref` is a zoo id ("llama-2-7b"), a custom model YAML file (*.yaml|*.yml),
// an ONNX file (*.onnx), or a Hugging Face config.json (*.json, or a folder
// holding config.json). Unknown ids answer with "did you mean".
Result<workload::Workload> load_workload(const std::string& ref, const WorkloadInputs& in);

// The workload as the MLPerf Training benchmark of `ref` trains it, for
// time-to-target questions: the benchmark's sequence length and pairs per
// sample unless `in` sets them, and LoRA adapters when the benchmark
// fine-tunes with LoRA (llama2_70b_lora). Other models load unchanged.
// `applied` (optional) says what was changed, for the output's assumptions.
Result<workload::Workload> load_benchmark_workload(const std::string& ref, WorkloadInputs in,
                                                   std::string* applied = nullptr);

// MLCommons' reference convergence points, embedded from data/mlperf/rcp.csv.
Result<std::vector<model::ConvergencePoint>> load_rcps();

// The fitted software-stack efficiencies predictions use: --calibration
// FILE, else the embedded data/calibration.yaml; none with --no-calibration.
Result<std::optional<model::Calibration>> load_calibration(const GlobalOptions& global);

// The stack family a prediction on `a` assumes: `named` (--stack) when
// given, else the vendor's usual one (model::default_stack). Errors: an
// unknown family (the message lists them).
Result<std::string> resolve_stack(const std::string& named, const catalog::Accelerator& a, workload::Task task);

// The model's error bands shipped with the binary (data/validation/error-bands.csv,
// written by `rooftop validate ... --bands`): the ranges predictions carry.
Result<std::vector<model::ErrorBand>> load_error_bands();

}  // namespace rooftop::app
