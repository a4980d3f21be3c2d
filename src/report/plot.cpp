// Scales, ticks and the chart frame shared by every SVG chart (see plot.h).
#include "report/plot.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <limits>

namespace rooftop::report::plot {

const std::string& colour(std::size_t i) {
  static const std::string kPalette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                         "#E69F00", "#56B4E9", "#666666", "#000000"};
  return kPalette[i % (sizeof kPalette / sizeof kPalette[0])];
}

bool Scale::valid(double v) const { return std::isfinite(v) && (!log || v > 0); }

double Scale::map(double v) const {
  if (!valid(v)) return px0;
  double t = log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) : (v - lo) / (hi - lo);
  return px0 + t * (px1 - px0);
}

namespace {

// The 1-2-5 step nearest above `raw`.
double nice_step(double raw) {
  if (!(raw > 0) || !std::isfinite(raw)) return 1;
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double f = raw / mag;
  double nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
  return nice * mag;
}

std::string fmt_g(double v, int digits) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

}  // namespace

std::string px(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string compact(double v) {
  if (v == 0) return "0";
  double a = std::fabs(v);
  if (a >= 1000) {
    static const char* kPrefix[] = {"k", "M", "G", "T", "P", "E", "Z"};
    int i = -1;
    while (a >= 1000 && i < 6) {
      a /= 1000;
      v /= 1000;
      ++i;
    }
    return fmt_g(v, 3) + kPrefix[i];
  }
  return fmt_g(v, a < 1e-3 ? 2 : 4);
}

Scale fit(const std::vector<double>& values, const Axis& axis, double px0, double px1, bool include_zero) {
  Scale s;
  s.log = axis.log;
  s.px0 = px0;
  s.px1 = px1;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (double v : values) {
    if (!s.valid(v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (include_zero && !s.log && lo <= hi) {
    lo = std::min(lo, 0.0);
    hi = std::max(hi, 0.0);
  }
  bool fixed_lo = axis.min && s.valid(*axis.min), fixed_hi = axis.max && s.valid(*axis.max);
  if (fixed_lo) lo = *axis.min;
  if (fixed_hi) hi = *axis.max;
  if (!(lo <= hi)) {
    if (fixed_lo) hi = s.log ? lo * 10 : lo + 1;
    else if (fixed_hi) lo = s.log ? hi / 10 : hi - 1;
    else lo = s.log ? 1 : 0, hi = s.log ? 10 : 1;
  }
  if (lo == hi) {
    if (s.log) lo /= 10, hi *= 10;
    else {
      double d = lo == 0 ? 1 : std::fabs(lo) * 0.1;
      lo -= d;
      hi += d;
    }
  }
  if (s.log) {
    if (!fixed_lo) lo = std::pow(10.0, std::floor(std::log10(lo) + 1e-9));
    if (!fixed_hi) hi = std::pow(10.0, std::ceil(std::log10(hi) - 1e-9));
    if (lo >= hi) hi = lo * 10;
  } else {
    double step = nice_step((hi - lo) / 5);
    if (!fixed_lo) lo = std::floor(lo / step + 1e-9) * step;
    if (!fixed_hi) hi = std::ceil(hi / step - 1e-9) * step;
  }
  s.lo = lo;
  s.hi = hi;
  return s;
}

std::vector<Tick> ticks(const Scale& s) {
  std::vector<Tick> out;
  if (s.log) {
    int k0 = static_cast<int>(std::ceil(std::log10(s.lo) - 1e-9));
    int k1 = static_cast<int>(std::floor(std::log10(s.hi) + 1e-9));
    int n = k1 - k0 + 1;
    int stride = std::max(1, (n + 7) / 8);
    std::vector<double> mults = {1};
    if (n <= 3) mults = {1, 2, 5};
    for (int k = k0 - 1; k <= k1; ++k) {
      for (double m : mults) {
        double v = m * std::pow(10.0, k);
        if (v < s.lo * (1 - 1e-9) || v > s.hi * (1 + 1e-9)) continue;
        if (m == 1 && (k - k0) % stride != 0) continue;
        out.push_back({v, compact(v)});
      }
    }
    return out;
  }
  double step = nice_step((s.hi - s.lo) / 5);
  double first = std::ceil(s.lo / step - 1e-9) * step;
  for (int i = 0; i < 100; ++i) {
    double v = first + i * step;
    if (v > s.hi + step * 1e-9) break;
    if (std::fabs(v) < step * 1e-9) v = 0;
    out.push_back({v, compact(v)});
  }
  return out;
}

std::vector<Tick> time_ticks(const Scale& s) {
  static const double kSteps[] = {1,    2,    5,    10,    15,    30,    60,    120,    300,    600,
                                  900,  1800, 3600, 7200,  10800, 21600, 43200, 86400,  172800, 604800};
  double span = s.hi - s.lo;
  double step = kSteps[sizeof kSteps / sizeof kSteps[0] - 1];
  for (double c : kSteps) {
    if (span / c <= 7) {
      step = c;
      break;
    }
  }
  while (span / step > 7) step *= 2;
  const char* format = step >= 86400 ? "%m-%d" : span > 86400 ? "%m-%d %H:%M" : step < 60 ? "%H:%M:%S" : "%H:%M";
  std::vector<Tick> out;
  double first = std::ceil(s.lo / step - 1e-9) * step;
  for (int i = 0; i < 100; ++i) {
    double v = first + i * step;
    if (v > s.hi + 1e-9) break;
    std::time_t t = static_cast<std::time_t>(std::llround(v));
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, format, &tm);
    out.push_back({v, buf});
  }
  return out;
}

double text_width(const std::string& text, double font_size) {
  std::size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80 ? 1 : 0;
  return static_cast<double>(n) * kCharEm * font_size;
}

Box text_box(const std::string& text, double x, double baseline, double font_size, Anchor anchor) {
  const double w = text_width(text, font_size);
  const double x0 = anchor == Anchor::start ? x : anchor == Anchor::middle ? x - w / 2 : x - w;
  return {x0, baseline - 0.8 * font_size, x0 + w, baseline + 0.25 * font_size};
}

std::vector<Tick> thin_x(const std::vector<Tick>& ticks, const Scale& x) {
  // The smallest stride at which no two kept labels touch.
  for (std::size_t stride = 1; stride <= std::max<std::size_t>(ticks.size(), 1); ++stride) {
    std::vector<Tick> kept;
    bool clash = false;
    for (std::size_t i = 0; i < ticks.size(); i += stride) {
      Box b = text_box(ticks[i].label, x.map(ticks[i].value), 0, 12, Anchor::middle);
      if (!kept.empty() && text_box(kept.back().label, x.map(kept.back().value), 0, 12, Anchor::middle).overlaps(b, 4)) {
        clash = true;
        break;
      }
      kept.push_back(ticks[i]);
    }
    if (!clash) return kept;
  }
  return ticks.empty() ? ticks : std::vector<Tick>{ticks.front()};
}

std::vector<Tick> thin_y(const std::vector<Tick>& ticks, const Scale& y) {
  for (std::size_t stride = 1; stride <= std::max<std::size_t>(ticks.size(), 1); ++stride) {
    bool clash = false;
    for (std::size_t i = stride; i < ticks.size() && !clash; i += stride) {
      clash = std::fabs(y.map(ticks[i].value) - y.map(ticks[i - stride].value)) < 16;
    }
    if (!clash) {
      std::vector<Tick> kept;
      for (std::size_t i = 0; i < ticks.size(); i += stride) kept.push_back(ticks[i]);
      return kept;
    }
  }
  return ticks;
}

Frame make_frame(const std::vector<LegendEntry>& legend) {
  Frame f;
  double longest = 0;
  for (const LegendEntry& e : legend) longest = std::max(longest, text_width(e.label, 12));
  // The legend sits right of the plot, never over the data; a long legend
  // widens the chart rather than running off its edge.
  if (!legend.empty()) {
    f.right = 30 + 14 + longest + 12;
    f.width = std::max(f.width, f.left + 480 + f.right);
  }
  return f;
}

std::string open_chart(const Frame& f, const std::string& title, const Scale& x, const std::vector<Tick>& xt,
                       const std::string& x_label, const Scale& y, const std::vector<Tick>& yt,
                       const std::string& y_label) {
  std::string t = escape_xml(title);
  std::string o = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + px(f.width) + "\" height=\"" + px(f.height) +
                  "\" viewBox=\"0 0 " + px(f.width) + " " + px(f.height) +
                  "\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\" role=\"img\" aria-label=\"" + t +
                  "\">\n<title>" + t + "</title>\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  o += "<text x=\"" + px(f.width / 2) + "\" y=\"26\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\" fill=\"#222222\">" +
       t + "</text>\n<g stroke=\"#e3e3e3\" stroke-width=\"1\">\n";
  for (const Tick& k : xt) o += "<line x1=\"" + px(x.map(k.value)) + "\" y1=\"" + px(f.plot_y1()) + "\" x2=\"" + px(x.map(k.value)) + "\" y2=\"" + px(f.plot_y0()) + "\"/>\n";
  for (const Tick& k : yt) o += "<line x1=\"" + px(f.plot_x0()) + "\" y1=\"" + px(y.map(k.value)) + "\" x2=\"" + px(f.plot_x1()) + "\" y2=\"" + px(y.map(k.value)) + "\"/>\n";
  o += "</g>\n<rect x=\"" + px(f.plot_x0()) + "\" y=\"" + px(f.plot_y1()) + "\" width=\"" + px(f.plot_x1() - f.plot_x0()) +
       "\" height=\"" + px(f.plot_y0() - f.plot_y1()) + "\" fill=\"none\" stroke=\"#444444\"/>\n<g fill=\"#333333\">\n";
  for (const Tick& k : thin_x(xt, x))
    o += "<text x=\"" + px(x.map(k.value)) + "\" y=\"" + px(f.plot_y0() + 17) + "\" text-anchor=\"middle\">" + escape_xml(k.label) + "</text>\n";
  for (const Tick& k : thin_y(yt, y))
    o += "<text x=\"" + px(f.plot_x0() - 7) + "\" y=\"" + px(y.map(k.value) + 4) + "\" text-anchor=\"end\">" + escape_xml(k.label) + "</text>\n";
  double mid_x = (f.plot_x0() + f.plot_x1()) / 2, mid_y = (f.plot_y0() + f.plot_y1()) / 2;
  o += "<text x=\"" + px(mid_x) + "\" y=\"" + px(f.height - 16) + "\" text-anchor=\"middle\" font-size=\"13\">" + escape_xml(x_label) + "</text>\n";
  o += "<text x=\"18\" y=\"" + px(mid_y) + "\" text-anchor=\"middle\" font-size=\"13\" transform=\"rotate(-90 18 " + px(mid_y) + ")\">" +
       escape_xml(y_label) + "</text>\n</g>\n";
  return o;
}

std::string close_chart(const Frame& f, const std::vector<LegendEntry>& legend, const std::string& note) {
  std::string o;
  double x = f.plot_x1() + 14, y = f.plot_y1() + 10;
  for (const LegendEntry& e : legend) {
    const std::string& c = e.colour;
    switch (e.mark) {
      case LegendEntry::Mark::line:
      case LegendEntry::Mark::dashed:
        o += "<line x1=\"" + px(x) + "\" y1=\"" + px(y) + "\" x2=\"" + px(x + 22) + "\" y2=\"" + px(y) + "\" stroke=\"" + c +
             "\" stroke-width=\"2.5\"" + (e.mark == LegendEntry::Mark::dashed ? " stroke-dasharray=\"6 4\"" : "") + "/>\n";
        break;
      case LegendEntry::Mark::point:
        o += "<circle cx=\"" + px(x + 11) + "\" cy=\"" + px(y) + "\" r=\"4.5\" fill=\"" + c + "\"/>\n";
        break;
      case LegendEntry::Mark::box:
        o += "<rect x=\"" + px(x + 4) + "\" y=\"" + px(y - 6) + "\" width=\"14\" height=\"12\" fill=\"" + c + "\"/>\n";
        break;
    }
    o += "<text x=\"" + px(x + 30) + "\" y=\"" + px(y + 4) + "\" fill=\"#222222\">" + escape_xml(e.label) + "</text>\n";
    y += 20;
  }
  if (!note.empty())
    o += "<text x=\"" + px(f.plot_x0()) + "\" y=\"" + px(f.height - 2) + "\" font-size=\"10\" fill=\"#666666\">" + escape_xml(note) + "</text>\n";
  return o + "</svg>\n";
}

std::string clip_id(const std::string& seed) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : seed) h = (h ^ c) * 1099511628211ull;
  char buf[32];
  std::snprintf(buf, sizeof buf, "rt-clip-%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace rooftop::report::plot
