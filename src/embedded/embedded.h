// The files of the source tree's data/ folder (accelerator catalog, model
// zoo, example scenarios and traces), compiled into the binary by
// cmake/embed.cmake so that rooftop needs no installed data directory.
#pragma once

#include <span>
#include <string_view>
#include <vector>

namespace rooftop {

struct EmbeddedFile {
  std::string_view path;     // relative to data/, e.g. "accelerators/nvidia-t4.yaml"
  std::string_view content;  // the file's bytes
};

// Every embedded file, sorted by path. Static storage; never fails.
std::span<const EmbeddedFile> embedded_files();

// The embedded files whose path starts with `prefix` (e.g. "accelerators/").
std::vector<EmbeddedFile> embedded_files_under(std::string_view prefix);

}  // namespace rooftop
