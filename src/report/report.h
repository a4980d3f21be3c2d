// Renderers shared by every command that shows results: terminal tables,
// SVG charts (roofline, scatter with a Pareto front, time-series lines with
// marked windows, bars), and documents rendered to Markdown or to one
// self-contained HTML file (inline CSS and SVG, no external assets).
// Pure: values in, strings out; writing files is the caller's job.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace rooftop::report {

// ---- Tables ---------------------------------------------------------------

enum class Align { left, right };

struct Table {
  std::vector<std::string> headers;
  std::vector<Align> align;                   // per column; default left
  std::vector<std::vector<std::string>> rows;

  // Monospace text with a header rule, columns padded to fit.
  std::string render_text() const;
  std::string render_markdown() const;
  std::string render_html() const;
};

// ---- Charts (each returns a complete <svg> element) ------------------------

struct Axis {
  std::string label;
  bool log = false;
  std::optional<double> min, max;             // default: fitted to the data
};

struct Point {
  std::string label;
  double x = 0, y = 0;
  bool highlight = false;                     // e.g. on the Pareto front
};

// Roofline: attainable = min(peak, bandwidth x intensity), log-log, with
// extra ceilings (other precisions or memory levels) and the workload's
// operators as points (x = FLOP/byte, y = achieved or attainable FLOP/s).
struct Ceiling {
  std::string label;                          // "fp16 989 TFLOP/s", "HBM 3.35 TB/s"
  double peak_flop_per_s = 0;                 // horizontal roof (0 = none)
  double bytes_per_s = 0;                     // slanted roof (0 = none)
};
struct RooflineChart {
  std::string title;
  std::vector<Ceiling> ceilings;              // the first is drawn boldest
  std::vector<Point> points;
  // When set, the first ceiling's slanted (memory) limb is drawn in its own
  // colour with this legend label ("memory roof: HBM3 3.35 TB/s"), and the
  // first ceiling's label names its flat (compute) limb.
  std::string memory_label;
};
std::string svg_roofline(const RooflineChart& c);

// Scatter; highlighted points are joined in x order (a Pareto front).
struct ScatterChart {
  std::string title;
  Axis x, y;
  std::vector<Point> points;
  bool connect_highlighted = true;
};
std::string svg_scatter(const ScatterChart& c);

// Lines over x (for time series, x is Unix seconds and ticks show times).
struct Series {
  std::string name;
  std::vector<double> x, y;
};
struct Window {
  double x0 = 0, x1 = 0;                      // a shaded band, e.g. where a problem was found
  std::string label;
};
struct LineChart {
  std::string title;
  Axis x, y;
  bool x_is_time = false;
  std::vector<Series> series;
  std::vector<Window> windows;
};
std::string svg_line(const LineChart& c);

// Bars per category; several series are stacked (stacked = true) or grouped.
struct BarChart {
  std::string title;
  Axis y;
  std::vector<std::string> categories;
  std::vector<Series> series;                 // series[i].y[j] = value of category j
  bool stacked = true;
};
std::string svg_bar(const BarChart& c);

// ---- Documents --------------------------------------------------------------

struct Heading { int level = 2; std::string text; };
struct Paragraph { std::string text; };       // plain text; **bold** and `code` are kept in Markdown
struct BulletList { std::vector<std::string> items; };
struct Figure { std::string svg; std::string caption; std::string name; };  // name: file stem for Markdown
struct Code { std::string text; };
using Block = std::variant<Heading, Paragraph, BulletList, Table, Figure, Code>;

struct Document {
  std::string title;
  std::vector<Block> blocks;
};

// Markdown with each figure written as a separate SVG file next to it:
// `files` holds (relative file name, content) pairs for the caller to write,
// and the Markdown links them as images.
struct MarkdownOutput {
  std::string markdown;
  std::vector<std::pair<std::string, std::string>> files;
};
MarkdownOutput render_markdown(const Document& d, const std::string& asset_prefix);

// One self-contained HTML page (inline CSS and SVG, no scripts, no external assets).
std::string render_html(const Document& d);

// Escapes &, <, >, " for HTML/SVG text.
std::string escape_xml(const std::string& s);

}  // namespace rooftop::report
