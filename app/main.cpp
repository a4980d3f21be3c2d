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
#include "version.h"

int main(int argc, char** argv) {
  using namespace rooftop::app;

  // 1. The application and its global options.
  CLI::App app{
      "rooftop - choose, size, measure and watch AI accelerators.\n"
      "Predicts performance with a roofline model over a sourced catalog of GPUs, TPUs, NPUs,\n"
      "FPGAs, edge boards and CPUs; measures the machine you have; monitors and analyses fleets.",
      "rooftop"};
  app.set_version_flag("--version", version_text, "Print the version, build options and backends, and exit");
  app.require_subcommand(1);
  app.fallthrough();
  GlobalOptions global;
  app.add_option("--catalog", global.catalog_paths,
                 "Overlay accelerator YAML files or folders on the embedded catalog (repeatable); "
                 "an entry with an existing id replaces it")
      ->type_name("PATH");
  app.add_flag("-q,--quiet", global.quiet, "No progress output on stderr");

  // 2. Every subcommand, from the one explicit list.
  std::vector<Command> commands;
  for (AddCommand add : all_commands()) commands.push_back(add(app, global));

  // 3. Parse; usage errors are bad input (exit 2).
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
  std::fprintf(stderr, "rooftop: error: no command given; see rooftop --help\n");
  return kExitBadInput;
}
