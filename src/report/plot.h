// Internal to the report module: the pieces every SVG chart shares (scales
// with readable ticks, the frame with axes, title and legend, the palette,
// number formatting). Charts in charts.cpp compose these.
#pragma once

#include <string>
#include <vector>

#include "report/report.h"

namespace rooftop::report::plot {

// Okabe-Ito colours: distinguishable with colour-blindness, dark enough on white.
const std::string& colour(std::size_t i);

// Maps data values on one axis to pixels. Log scales take only positive
// values: `valid` says whether a value can be drawn at all.
struct Scale {
  double lo = 0, hi = 1;
  bool log = false;
  double px0 = 0, px1 = 1;  // pixel of lo and of hi (px1 < px0 for a y axis)

  bool valid(double v) const;
  double map(double v) const;
};

struct Tick {
  double value;
  std::string label;
};

// A range fitted to `values` (the drawable ones), honouring the axis's
// explicit min/max and widened to whole ticks: 1-2-5 steps, or decades.
Scale fit(const std::vector<double>& values, const Axis& axis, double px0, double px1, bool include_zero = false);
std::vector<Tick> ticks(const Scale& s);
// Ticks for Unix times in UTC (1 s ... 1 week steps), labelled HH:MM,
// HH:MM:SS or MM-DD as the span requires.
std::vector<Tick> time_ticks(const Scale& s);

// 0.5 -> "0.5", 2500 -> "2.5k", 1e12 -> "1T"
std::string compact(double v);
// "%.1f" for coordinates.
std::string px(double v);

struct LegendEntry {
  std::string label;
  std::string colour;
  enum class Mark { line, dashed, point, box } mark = Mark::line;
};

// The drawing area of a chart and its surroundings.
struct Frame {
  double width = 760, height = 440;
  double left = 78, right = 24, top = 44, bottom = 58;
  double plot_x0() const { return left; }
  double plot_x1() const { return width - right; }
  double plot_y0() const { return height - bottom; }  // bottom edge (y grows downwards)
  double plot_y1() const { return top; }
};

// A frame wide enough on the right for the legend.
Frame make_frame(const std::vector<LegendEntry>& legend);

// Opening <svg> with title, background, grid, axes, tick labels and axis labels.
std::string open_chart(const Frame& f, const std::string& title, const Scale& x, const std::vector<Tick>& xt,
                       const std::string& x_label, const Scale& y, const std::vector<Tick>& yt,
                       const std::string& y_label);
// The legend (right of the plot) and the closing </svg>; `note` is a small
// line under the plot (e.g. how many points could not be drawn).
std::string close_chart(const Frame& f, const std::vector<LegendEntry>& legend, const std::string& note = "");

// Text extents with one fixed font metric, so that placement here and the
// overlap check of the tests agree without a font engine: 0.6 em per
// character (code point), 0.8 em above the baseline and 0.25 em below.
struct Box {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool overlaps(const Box& o, double gap = 0) const {
    return x0 < o.x1 + gap && o.x0 < x1 + gap && y0 < o.y1 + gap && o.y0 < y1 + gap;
  }
};
enum class Anchor { start, middle, end };
inline constexpr double kCharEm = 0.6;
double text_width(const std::string& text, double font_size);
Box text_box(const std::string& text, double x, double baseline, double font_size, Anchor anchor = Anchor::start);

// Keeps the ticks whose labels (at font 12) do not run into the previously
// kept one: every second, third... tick when they are crowded.
std::vector<Tick> thin_x(const std::vector<Tick>& ticks, const Scale& x);
std::vector<Tick> thin_y(const std::vector<Tick>& ticks, const Scale& y);

// A stable id for clip paths, so several charts can share one HTML page.
std::string clip_id(const std::string& seed);

}  // namespace rooftop::report::plot
