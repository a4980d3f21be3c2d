// Writing a report::Document to FILE.html (one self-contained page) or
// FILE.md (Markdown plus one SVG file per figure beside it).
#pragma once

#include <string>

#include "core/result.h"
#include "report/report.h"

namespace rooftop::app {

Result<void> write_report(const report::Document& doc, const std::string& path);

}  // namespace rooftop::app
