// rooftop: choose, size, measure and watch AI accelerators.
//
// main() only wires things: it builds the CLI from the explicit command list
// (commands.cpp), parses, and runs the chosen command, turning its result
// into an exit code (0 ok, 1 failure, 2 bad input).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "commands.h"
#include "core/text.h"
#include "help.h"
#include "version.h"

int main(int argc, char** argv) {
  using namespace rooftop::app;

  // 1. The application and its global options.
  CLI::App app{
      "rooftop - choose, size, measure and watch AI accelerators.\n"
      "Predicts performance with a roofline model over a sourced catalog of GPUs, TPUs, NPUs, "
      "FPGAs, edge boards and CPUs; measures the machine you have; monitors and analyses fleets.",
      "rooftop"};
  app.set_version_flag("--version", version_text, "Print the version, build options and backends, and exit");
  app.formatter(wrapping_formatter());  // before the subcommands, which inherit it
  app.require_subcommand(0, 1);
  app.fallthrough();
  GlobalOptions global;
  app.add_option("--catalog", global.catalog_paths,
                 "Overlay accelerator YAML files or folders on the embedded catalog (repeatable); "
                 "an entry with an existing id replaces it")
      ->type_name("PATH");
  app.add_flag("-q,--quiet", global.quiet, "No progress output on stderr");
  app.add_option("--calibration", global.calibration_path,
                 "Fitted software-stack efficiencies to predict with, as `rooftop calibrate` writes them "
                 "(default: the embedded data/calibration.yaml)")
      ->type_name("FILE");
  app.add_flag("--no-calibration", global.no_calibration,
               "Predict from physics alone: no fitted software-stack efficiency (docs/model.md#calibration)");

  // 2. Every subcommand, from the one explicit list.
  std::vector<Command> commands;
  for (AddCommand add : all_commands()) commands.push_back(add(app, global));

  // 3. Parse; usage errors are bad input (exit 2). A bare `rooftop` shows
  // the commands with an example each; a mistyped command gets "did you mean".
  if (argc == 1) {
    std::fputs(overview(app).c_str(), stdout);
    return kExitOk;
  }
  if (std::string typo = unknown_command(app, argc, argv); !typo.empty()) {
    std::vector<std::string> names;
    for (const Command& c : commands) names.push_back(c.sub->get_name());
    std::fprintf(stderr, "rooftop: error: %s\nRun 'rooftop' for the list of commands.\n",
                 rooftop::did_you_mean("command", typo, names).c_str());
    return kExitBadInput;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitBadInput;
  }

  // 4. Run the chosen command.
  for (const Command& c : commands) {
    if (c.sub->parsed()) return c.run();
  }
  std::fputs(overview(app).c_str(), stderr);
  std::fprintf(stderr, "rooftop: error: no command given\n");
  return kExitBadInput;
}
