// Help text a person can read: every help page wrapped at the terminal's
// width (80 columns when stdout is not a terminal), the overview a bare
// `rooftop` prints (each command with its first example), and "did you mean"
// for a mistyped command.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

namespace rooftop::app {

// Columns to wrap at: the terminal's width when stdout is one (40..200),
// else 80.
std::size_t help_width();

// Word-wraps `text` at `width`; a line of two columns ("  --json  Machine-
// readable output ...") continues under its second column.
std::string wrap_help(const std::string& text, std::size_t width);

// Joins the lines of each paragraph of `text` with a space; a blank line, a
// line that starts with "- " (a list item) and a line that starts with a
// space (an indented example, which also keeps the line after it apart) keep
// their breaks.
std::string reflow_paragraphs(const std::string& text);

// CLI11's formatter, with every page wrapped at help_width().
std::shared_ptr<CLI::Formatter> wrapping_formatter();

// The command list with one example each (the first line of each command's
// "Examples:" footer).
std::string overview(const CLI::App& app);

// The first positional word of the command line when it names no command
// ("advsie"); empty when it does or when there is none. Values of the global
// options that take one (--catalog PATH) are skipped.
std::string unknown_command(const CLI::App& app, int argc, const char* const* argv);

}  // namespace rooftop::app
