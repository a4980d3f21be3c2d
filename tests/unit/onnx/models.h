// Where the ONNX unit tests find the models tests/data/onnx/make_models.py
// generated at build time (<build>/onnx-models), and a loader that skips the
// test, saying why, when they were not generated (no python3-onnx).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "onnx/onnx.h"

namespace rooftop::onnx::test {

inline std::string models_dir() { return std::string(ROOFTOP_BINARY_DIR) + "/onnx-models"; }
inline std::string model_path(const std::string& file) { return models_dir() + "/" + file; }
inline bool have_models() { return std::filesystem::exists(model_path("resnet50.onnx")); }

#define ROOFTOP_NEED_ONNX_MODELS()                                                                  \
  do {                                                                                             \
    if (!::rooftop::onnx::test::have_models())                                                     \
      GTEST_SKIP() << "ONNX test models not generated (needs python3-onnx): " << ::rooftop::onnx::test::models_dir(); \
  } while (0)

}  // namespace rooftop::onnx::test
