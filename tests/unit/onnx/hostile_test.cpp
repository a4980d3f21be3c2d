// Malformed, truncated and hostile ONNX files give a clear Error naming the
// problem, never a crash (the fuzz target, tests/fuzz, covers the rest).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "onnx/onnx.h"
#include "unit/onnx/models.h"

namespace rooftop::onnx {
namespace {

struct Case {
  const char* file;
  Errc code;
  const char* message;  // a substring of the error
};

class Hostile : public ::testing::TestWithParam<Case> {};

TEST_P(Hostile, GivesAClearError) {
  ROOFTOP_NEED_ONNX_MODELS();
  const Case& c = GetParam();
  Result<ImportedModel> m = import_file(test::model_path(c.file), {});
  ASSERT_FALSE(m.has_value()) << c.file << " imported";
  EXPECT_EQ(m.error().code, c.code) << m.error().what();
  EXPECT_NE(m.error().message.find(c.message), std::string::npos) << m.error().what();
  EXPECT_NE(m.error().context.find(c.file), std::string::npos) << m.error().what();
}

INSTANTIATE_TEST_SUITE_P(
    Files, Hostile,
    ::testing::Values(Case{"cyclic.onnx", Errc::invalid_input, "cycle"},
                      Case{"missing_input.onnx", Errc::invalid_input, "reads 'ghost'"},
                      Case{"negative_dim.onnx", Errc::invalid_input, "negative"},
                      Case{"absurd_dim.onnx", Errc::invalid_input, "absurd"},
                      Case{"overflow.onnx", Errc::invalid_input, "absurd"},
                      Case{"symbolic.onnx", Errc::invalid_input, "symbolic"},
                      Case{"traversal.onnx", Errc::invalid_input, "unsafe"},
                      Case{"missing_weights.onnx", Errc::not_found, "external data file 'does_not_exist.bin'"},
                      Case{"truncated.onnx", Errc::invalid_input, "malformed or truncated"},
                      Case{"garbage.onnx", Errc::invalid_input, "malformed or truncated"},
                      Case{"zero_stride.onnx", Errc::invalid_input, "node 'conv1' (Conv) has strides 0"},
                      Case{"zero_group.onnx", Errc::invalid_input, "node 'conv1' (Conv) has group 0"},
                      Case{"zero_kernel.onnx", Errc::invalid_input, "node 'pool1' (MaxPool) has kernel_shape 0"},
                      Case{"conv_rank_mismatch.onnx", Errc::invalid_input, "input 'x' of rank 3 with weight 'w' of rank 4"},
                      Case{"conv_computed_weight.onnx", Errc::invalid_input,
                           "node 'conv1' (Conv) has no kernel_shape and the shape of its weight 'wr'"}),
    [](const auto& info) {
      std::string n = info.param.file;
      return n.substr(0, n.find('.'));
    });

TEST(OnnxHostile, FilesOver2GiBAreRefusedBeforeParsing) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("rooftop-onnx-big-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::path big = dir / "big.onnx";
  { std::ofstream(big).put('x'); }
  std::filesystem::resize_file(big, kMaxModelFileBytes + 1);  // sparse: no disk blocks
  Result<ImportedModel> m = import_file(big.string(), {});
  std::filesystem::remove_all(dir);
  ASSERT_FALSE(m.has_value());
  EXPECT_EQ(m.error().code, Errc::unsupported);
  EXPECT_NE(m.error().message.find("2 GiB limit"), std::string::npos) << m.error().message;
  EXPECT_NE(m.error().message.find("external data"), std::string::npos) << m.error().message;
}

TEST(OnnxHostile, EmptyAndMissingInputs) {
  EXPECT_FALSE(import_bytes("", "empty.onnx", {}).has_value());
  Result<ImportedModel> m = import_file("/nonexistent/model.onnx", {});
  ASSERT_FALSE(m.has_value());
  EXPECT_EQ(m.error().code, Errc::not_found);
}

}  // namespace
}  // namespace rooftop::onnx
