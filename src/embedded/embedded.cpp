#include "embedded/embedded.h"

namespace rooftop {

std::vector<EmbeddedFile> embedded_files_under(std::string_view prefix) {
  std::vector<EmbeddedFile> out;
  for (const EmbeddedFile& f : embedded_files()) {
    if (f.path.substr(0, prefix.size()) == prefix) out.push_back(f);
  }
  return out;
}

}  // namespace rooftop
