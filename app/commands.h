// The one explicit list of subcommands (ggml-style registry). To add a
// command: write app/cmd_<name>.cpp with add_<name>_command, declare it here
// and append it to kCommands in commands.cpp.
#pragma once

#include <span>

#include "command.h"

namespace rooftop::app {

std::span<const AddCommand> all_commands();

}  // namespace rooftop::app
