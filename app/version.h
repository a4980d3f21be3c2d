// `rooftop --version`: the version, how this binary was built, and which
// backends it carries (compiled in) or loads at run time.
#pragma once

#include <string>

namespace rooftop::app {

std::string version_text();

}  // namespace rooftop::app
