// Helpers shared by the telemetry unit tests.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace rooftop::telemetry::test {

inline std::string source_path(const std::string& rel) { return (std::filesystem::path(ROOFTOP_SOURCE_DIR) / rel).string(); }

// A fresh scratch directory under the build tree, removed first if present.
inline std::string scratch_dir(const std::string& name) {
  const std::string dir = std::string(ROOFTOP_BINARY_DIR) + "/test-scratch/telemetry/" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

}  // namespace rooftop::telemetry::test
