// Wrapped help pages, the bare-`rooftop` overview and "did you mean" for
// commands (see help.h).
#include "help.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <sstream>

#include "core/text.h"

namespace rooftop::app {

std::size_t help_width() {
  winsize ws{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
    return std::clamp<std::size_t>(ws.ws_col, 40, 200);
  }
  return 80;
}

namespace {

// Where an example command starts on a line (an indented "rooftop ..." or
// the overview's "e.g. rooftop ..."): the offset of "rooftop", or npos. Prose
// at the margin that begins with the name ("rooftop - choose, ...") is not one.
std::size_t command_start(const std::string& line) {
  const std::size_t lead = line.find_first_not_of(' ');
  if (lead == std::string::npos) return std::string::npos;
  if (lead > 0 && line.compare(lead, 8, "rooftop ") == 0) return lead;
  if (line.compare(lead, 13, "e.g. rooftop ") == 0) return lead + 5;
  return std::string::npos;
}

// Where a line's text continues when wrapped: under the second column of a
// two-column line ("  name   description"), else under its first word.
std::size_t continuation_indent(const std::string& line) {
  const std::size_t lead = line.find_first_not_of(' ');
  if (lead == std::string::npos) return 0;
  const std::size_t gap = line.find("  ", lead);
  if (gap != std::string::npos) {
    const std::size_t second = line.find_first_not_of(' ', gap);
    if (second != std::string::npos && second < line.size() / 2 + 40) return second;
  }
  // A wrapped command line hangs under itself, so it never reads as a new command.
  const std::size_t command = command_start(line);
  return command != std::string::npos ? command + 4 : lead;
}

void wrap_line(std::string line, std::size_t width, std::string& out) {
  std::size_t indent = continuation_indent(line);
  if (indent > width / 2) indent = std::min<std::size_t>(8, width / 4);
  // An example command wraps with a shell continuation (" \"), so it still
  // runs when pasted as shown.
  const bool command = command_start(line) != std::string::npos;
  const std::string mark = command ? " \\" : "";
  if (command && width > 2) width -= 2;
  while (line.size() > width) {
    // Break at the last space that fits, past the indentation; a word longer
    // than the line stays whole.
    std::size_t cut = line.rfind(' ', width);
    if (cut == std::string::npos || cut <= indent) cut = line.find(' ', width);
    if (cut == std::string::npos) break;
    std::string head = line.substr(0, cut);
    while (!head.empty() && head.back() == ' ') head.pop_back();
    out += head + mark + "\n";
    std::size_t rest = line.find_first_not_of(' ', cut);
    if (rest == std::string::npos) return;
    line = std::string(indent, ' ') + line.substr(rest);
  }
  out += line + "\n";
}

class Wrapping : public CLI::Formatter {
 public:
  // A command's description is prose: its source lines are joined before the
  // page is wrapped, so it fills the terminal instead of breaking twice.
  std::string make_description(const CLI::App* app) const override {
    return reflow_paragraphs(CLI::Formatter::make_description(app));
  }
  // So are a footer's (its examples are indented, so they keep their lines),
  // an option's and a subcommand's in a list.
  std::string make_footer(const CLI::App* app) const override {
    return reflow_paragraphs(CLI::Formatter::make_footer(app));
  }
  std::string make_option_desc(const CLI::Option* opt) const override {
    return reflow_paragraphs(CLI::Formatter::make_option_desc(opt));
  }
  std::string make_subcommand(const CLI::App* sub) const override {
    std::stringstream out;
    CLI::detail::format_help(out, sub->get_display_name(true), reflow_paragraphs(sub->get_description()),
                             get_column_width());
    return out.str();
  }
  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override {
    return wrap_help(CLI::Formatter::make_help(app, std::move(name), mode), help_width());
  }
};

}  // namespace

std::string reflow_paragraphs(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    // An indented line (an example) keeps its own line: nothing joins it from below either.
    const bool joins = text[i] == '\n' && i > 0 && text[i - 1] != '\n' && text[line_start] != ' ' &&
                       i + 1 < text.size() && text[i + 1] != '\n' && text[i + 1] != ' ' && text[i + 1] != '-';
    if (text[i] == '\n') line_start = i + 1;
    if (!joins) {
      out += text[i];
    } else if (out.empty() || out.back() != ' ') {
      out += ' ';
    }
  }
  return out;
}

std::string wrap_help(const std::string& text, std::size_t width) {
  std::string out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) wrap_line(line, width, out);
  if (!text.empty() && text.back() != '\n' && !out.empty()) out.pop_back();
  return out;
}

std::shared_ptr<CLI::Formatter> wrapping_formatter() {
  auto f = std::make_shared<Wrapping>();
  f->column_width(26);
  return f;
}

std::string overview(const CLI::App& app) {
  std::string out = app.get_description() + "\n\nUsage: rooftop [--catalog PATH] [--quiet] COMMAND ...\n\nCommands:\n";
  std::size_t name_w = 0;
  for (const CLI::App* sub : app.get_subcommands({})) name_w = std::max(name_w, sub->get_name().size());
  for (const CLI::App* sub : app.get_subcommands({})) {
    std::string desc = sub->get_description();
    // The first sentence is enough here; `rooftop COMMAND --help` has the rest.
    std::size_t stop = std::min({desc.find(": "), desc.find(". "), desc.find('\n')});
    if (stop != std::string::npos) desc = desc.substr(0, stop);
    std::string row = "  " + sub->get_name() + std::string(name_w - sub->get_name().size() + 2, ' ') + desc;
    out += row + "\n";
    std::istringstream footer(sub->get_footer());
    std::string line;
    while (std::getline(footer, line)) {
      std::string t = trim(line);
      if (starts_with(t, "rooftop ")) {
        if (std::size_t hash = t.find("  #"); hash != std::string::npos) t = trim(t.substr(0, hash));
        out += std::string(name_w + 4, ' ') + "e.g. " + t + "\n";
        break;
      }
    }
  }
  out += "\nRun 'rooftop COMMAND --help' for a command's options and examples; docs/ has the details.\n";
  return wrap_help(out, help_width());
}

std::string unknown_command(const CLI::App& app, int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (!a.empty() && a[0] == '-') {
      // A global option that takes a value (--catalog PATH, --calibration
      // FILE) consumes the next word, unless given as --opt=value.
      const CLI::Option* opt = a.find('=') == std::string::npos ? app.get_option_no_throw(a) : nullptr;
      if (opt && opt->get_items_expected_min() > 0) ++i;
      continue;
    }
    if (a.empty()) continue;
    for (const CLI::App* sub : app.get_subcommands({})) {
      if (sub->check_name(a)) return "";
    }
    return a;
  }
  return "";
}

}  // namespace rooftop::app
