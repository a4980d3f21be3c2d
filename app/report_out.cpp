#include "report_out.h"

#include <filesystem>
#include <cstring>
#include <fstream>

#include "core/text.h"

namespace rooftop::app {

namespace {
Result<void> write_text(const std::string& path, const std::string& text) {
  std::ofstream o(path, std::ios::binary | std::ios::trunc);
  o << text;
  o.close();
  if (!o) return make_error(Errc::io, "cannot write file", path);
  return {};
}
}  // namespace

Result<void> write_report(const report::Document& doc, const std::string& path) {
  std::string lower = to_lower(path);
  auto ends = [&](const char* s) { return lower.size() >= std::strlen(s) && lower.compare(lower.size() - std::strlen(s), std::string::npos, s) == 0; };
  if (ends(".html") || ends(".htm")) return write_text(path, report::render_html(doc));
  if (ends(".md") || ends(".markdown")) {
    std::filesystem::path p(path);
    std::string stem = p.stem().string();
    report::MarkdownOutput md = report::render_markdown(doc, stem + "-");
    for (const auto& [name, content] : md.files) {
      Result<void> r = write_text((p.parent_path() / name).string(), content);
      if (!r) return r;
    }
    return write_text(path, md.markdown);
  }
  return make_error(Errc::invalid_input, "report must end in .html or .md", "--report " + path);
}

}  // namespace rooftop::app
