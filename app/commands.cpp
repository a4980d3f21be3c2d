#include "commands.h"

namespace rooftop::app {

// Declarations of every add_<name>_command (one per app/cmd_<name>.cpp).
// (keep one per line, in the order they appear in --help)
Command add_analyze_command(CLI::App&, const GlobalOptions&);
Command add_trace_command(CLI::App&, const GlobalOptions&);
Command add_deploy_command(CLI::App&, const GlobalOptions&);
Command add_catalog_command(CLI::App&, const GlobalOptions&);
Command add_predict_command(CLI::App&, const GlobalOptions&);
Command add_validate_command(CLI::App&, const GlobalOptions&);
Command add_calibrate_command(CLI::App&, const GlobalOptions&);
Command add_roofline_command(CLI::App&, const GlobalOptions&);
Command add_monitor_command(CLI::App&, const GlobalOptions&);
Command add_top_command(CLI::App&, const GlobalOptions&);
Command add_advise_command(CLI::App&, const GlobalOptions&);
Command add_bench_command(CLI::App&, const GlobalOptions&);
Command add_workload_command(CLI::App&, const GlobalOptions&);

namespace {
const AddCommand kCommands[] = {
    // The overview lists them in this order: the main job first, then the
    // model's inputs and checks, then measuring, watching and deploying.
    add_advise_command,
    add_predict_command,
    add_catalog_command,
    add_workload_command,
    add_roofline_command,
    add_validate_command,
    add_calibrate_command,
    add_bench_command,
    add_monitor_command,
    add_top_command,
    add_analyze_command,
    add_trace_command,
    add_deploy_command,
    nullptr,  // sentinel so the array is never empty; skipped by all_commands()
};
}  // namespace

std::span<const AddCommand> all_commands() {
  return std::span<const AddCommand>(kCommands, sizeof kCommands / sizeof kCommands[0] - 1);
}

}  // namespace rooftop::app
