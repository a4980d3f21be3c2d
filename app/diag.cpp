#include <cstdio>

#include "command.h"

namespace rooftop::app {

int exit_code_for(Errc code) {
  switch (code) {
    case Errc::invalid_input:
    case Errc::not_found:
    case Errc::unsupported: return kExitBadInput;
    case Errc::io:
    case Errc::internal: return kExitFailure;
  }
  return kExitFailure;
}

int report_error(const Error& e) {
  std::fprintf(stderr, "rooftop: error: %s\n", e.what().c_str());
  return exit_code_for(e.code);
}

}  // namespace rooftop::app
