// The contract between main() and the subcommands. Each subcommand lives in
// app/cmd_<name>.cpp and exposes one `add_<name>_command` function that
// registers its CLI11 subcommand and returns the function to run when the
// user chose it. main.cpp holds the one explicit list of them.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"

// CLI11 stays out of this header (it is the heaviest header in the app): the
// command files that register options include <CLI/CLI.hpp> themselves.
namespace CLI {
class App;
}  // namespace CLI

namespace rooftop::app {

// Options every command can see (parsed before the command runs).
struct GlobalOptions {
  std::vector<std::string> catalog_paths;  // --catalog PATH (repeatable): overlay files/dirs
  bool quiet = false;                      // --quiet: no progress output
  std::string calibration_path;            // --calibration FILE: fitted stack factors instead of the embedded ones
  bool no_calibration = false;             // --no-calibration: pure physics
};

// Exit codes: 0 success, 1 runtime failure (I/O, internal), 2 bad input.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitBadInput = 2;

struct Command {
  CLI::App* sub = nullptr;          // the registered subcommand
  std::function<int()> run;         // called when `sub` was parsed; returns an exit code
};

// Signature of every add_<name>_command.
using AddCommand = Command (*)(CLI::App& app, const GlobalOptions& global);

// Prints `e` as "rooftop: error: <context>: <message>" to stderr and returns
// the exit code for its kind (2 for bad input / not found / unsupported).
int report_error(const Error& e);

// Exit code for an error kind.
int exit_code_for(Errc code);

}  // namespace rooftop::app
