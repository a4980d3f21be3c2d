// The four SVG charts: roofline (log-log), scatter (optional log axes and a
// Pareto front), lines over time with shaded windows, and stacked or grouped
// bars. Values that cannot be drawn (NaN, infinities, non-positive values on
// a log axis) are skipped and counted in a note under the plot, never turned
// into NaN coordinates.
#include <algorithm>
#include <cmath>
#include <map>

#include "report/plot.h"

namespace rooftop::report {

using plot::colour;
using plot::LegendEntry;
using plot::px;
using Mark = plot::LegendEntry::Mark;

namespace {

std::string skipped_note(std::size_t n, const char* what) {
  if (n == 0) return {};
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s") + " not drawn (not finite, or not positive on a log axis)";
}

std::string polyline(const std::vector<std::pair<double, double>>& pts, const std::string& stroke, double width,
                     const std::string& extra = "") {
  std::string o = "<polyline fill=\"none\" stroke=\"" + stroke + "\" stroke-width=\"" + px(width) + "\"" + extra + " points=\"";
  for (std::size_t i = 0; i < pts.size(); ++i) o += (i ? " " : "") + px(pts[i].first) + "," + px(pts[i].second);
  return o + "\"/>\n";
}

// One marker with a hover tooltip (the label is placed separately).
std::string marker(const Point& p, double cx, double cy, const std::string& fill) {
  std::string o = "<g><title>" + escape_xml(p.label) + " (" + plot::compact(p.x) + ", " + plot::compact(p.y) + ")</title>";
  if (p.highlight)
    o += "<circle cx=\"" + px(cx) + "\" cy=\"" + px(cy) + "\" r=\"6\" fill=\"" + fill + "\" stroke=\"#222222\" stroke-width=\"1.5\"/>";
  else
    o += "<circle cx=\"" + px(cx) + "\" cy=\"" + px(cy) + "\" r=\"4.5\" fill=\"" + fill + "\" fill-opacity=\"0.8\"/>";
  return o + "</g>\n";
}

struct Drawn {
  const Point* point;
  double cx, cy;
  bool want_label;
};

// Markers, then their labels placed greedily so that no two labels and no
// label and marker overlap: next to the point first, then further out with
// a leader line; a label that fits nowhere is left out (its point keeps the
// tooltip) and counted in the chart's note.
std::string markers_and_labels(const std::vector<Drawn>& pts, const plot::Frame& f,
                               const std::string& (*fill)(const Point&), std::size_t& dropped) {
  constexpr double kFont = 11;
  std::string o;
  std::vector<plot::Box> taken;
  for (const Drawn& d : pts) {
    o += marker(*d.point, d.cx, d.cy, fill(*d.point));
    const double r = d.point->highlight ? 7 : 5.5;
    taken.push_back({d.cx - r, d.cy - r, d.cx + r, d.cy + r});
  }
  std::vector<const Drawn*> order;
  for (const Drawn& d : pts) {
    if (d.want_label && !d.point->label.empty()) order.push_back(&d);
  }
  std::stable_sort(order.begin(), order.end(), [](const Drawn* a, const Drawn* b) {
    return a->point->highlight && !b->point->highlight;
  });
  // Leader lines drawn so far: a new one may not cross them (crossed leaders
  // point each label at the other's marker).
  struct Segment {
    double x0, y0, x1, y1;
  };
  std::vector<Segment> leaders;
  auto crosses = [](const Segment& p, const Segment& q) {
    auto side = [](double ax, double ay, double bx, double by, double cx, double cy) {
      return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
    };
    double d1 = side(q.x0, q.y0, q.x1, q.y1, p.x0, p.y0), d2 = side(q.x0, q.y0, q.x1, q.y1, p.x1, p.y1);
    double d3 = side(p.x0, p.y0, p.x1, p.y1, q.x0, q.y0), d4 = side(p.x0, p.y0, p.x1, p.y1, q.x1, q.y1);
    return ((d1 > 0) != (d2 > 0)) && ((d3 > 0) != (d4 > 0));
  };
  const plot::Box area{f.plot_x0() + 2, f.plot_y1() + 2, f.plot_x1() - 2, f.plot_y0() - 2};
  auto inside = [&](const plot::Box& b) { return b.x0 >= area.x0 && b.x1 <= area.x1 && b.y0 >= area.y0 && b.y1 <= area.y1; };
  for (const Drawn* d : order) {
    const std::string& text = d->point->label;
    bool placed = false;
    // Rings of candidate positions: distance 0 means "beside the marker".
    for (double dist : {0.0, 26.0, 44.0, 66.0}) {
      for (int k = 0; k < 8 && !placed; ++k) {
        static const double kDx[] = {1, 1, -1, -1, 0, 0, 1, -1}, kDy[] = {-1, 1, -1, 1, -1, 1, 0, 0};
        double dx = kDx[k], dy = kDy[k];
        double ax = d->cx + dx * (8 + dist), ay = d->cy + dy * (7 + dist * 0.7);
        plot::Anchor anchor = dx > 0 ? plot::Anchor::start : dx < 0 ? plot::Anchor::end : plot::Anchor::middle;
        double baseline = dy < 0 ? ay : dy > 0 ? ay + 0.8 * kFont : ay + 0.3 * kFont;
        plot::Box b = plot::text_box(text, ax, baseline, kFont, anchor);
        if (!inside(b)) continue;
        bool clash = false;
        for (const plot::Box& t : taken) clash = clash || b.overlaps(t, 1.5);
        if (clash) continue;
        const Segment leader{d->cx, d->cy, std::clamp(d->cx, b.x0, b.x1), std::clamp(d->cy, b.y0, b.y1)};
        if (dist > 0) {
          for (const Segment& l : leaders) clash = clash || crosses(leader, l);
          if (clash) continue;
          leaders.push_back(leader);
          const double lx = leader.x1, ly = leader.y1;
          o += "<line x1=\"" + px(d->cx) + "\" y1=\"" + px(d->cy) + "\" x2=\"" + px(lx) + "\" y2=\"" + px(ly) +
               "\" stroke=\"#888888\" stroke-width=\"0.8\"/>\n";
        }
        const char* a = anchor == plot::Anchor::start ? "start" : anchor == plot::Anchor::end ? "end" : "middle";
        o += "<text x=\"" + px(ax) + "\" y=\"" + px(baseline) + "\" font-size=\"11\" text-anchor=\"" + a +
             "\" fill=\"#222222\">" + escape_xml(text) + "</text>\n";
        taken.push_back(b);
        placed = true;
      }
      if (placed) break;
    }
    if (!placed) ++dropped;
  }
  return o;
}

std::string notes(const std::string& a, std::size_t dropped) {
  std::string b = dropped == 0 ? "" : std::to_string(dropped) + " label" + (dropped == 1 ? "" : "s") +
                                          " left out where they would overlap (hover a point for its name)";
  return a.empty() ? b : b.empty() ? a : a + "; " + b;
}

std::string clip_open(const plot::Frame& f, const std::string& id) {
  return "<defs><clipPath id=\"" + id + "\"><rect x=\"" + px(f.plot_x0()) + "\" y=\"" + px(f.plot_y1()) + "\" width=\"" +
         px(f.plot_x1() - f.plot_x0()) + "\" height=\"" + px(f.plot_y0() - f.plot_y1()) + "\"/></clipPath></defs>\n<g clip-path=\"url(#" +
         id + ")\">\n";
}

// Data values plus a margin, so markers at the extremes do not sit on the
// frame; the margin never crosses zero when the data does not.
std::vector<double> padded(std::vector<double> v, bool log) {
  if (v.empty()) return v;
  auto [lo_it, hi_it] = std::minmax_element(v.begin(), v.end());
  double lo = *lo_it, hi = *hi_it;
  if (log) {
    v.push_back(lo / 1.25);
    v.push_back(hi * 1.25);
  } else {
    double pad = (hi > lo ? hi - lo : std::fabs(hi)) * 0.05;
    v.push_back(lo >= 0 && lo - pad < 0 ? 0 : lo - pad);
    v.push_back(hi <= 0 && hi + pad > 0 ? 0 : hi + pad);
  }
  return v;
}

bool drawable(const plot::Scale& x, const plot::Scale& y, double vx, double vy) { return x.valid(vx) && y.valid(vy); }

}  // namespace

std::string svg_roofline(const RooflineChart& c) {
  const Ceiling* main = c.ceilings.empty() ? nullptr : &c.ceilings.front();
  double main_peak = main ? main->peak_flop_per_s : 0, main_bw = main ? main->bytes_per_s : 0;
  // The roof of a ceiling: its own peak/bandwidth, bounded by the main roof's other limb.
  auto roof = [&](const Ceiling& k, double x) {
    double peak = k.peak_flop_per_s > 0 ? k.peak_flop_per_s : main_peak;
    double bw = k.bytes_per_s > 0 ? k.bytes_per_s : main_bw;
    if (peak > 0 && bw > 0) return std::min(peak, bw * x);
    return peak > 0 ? peak : bw * x;
  };
  std::vector<double> xs, ys;
  for (const Point& p : c.points) {
    if (p.x > 0 && p.y > 0 && std::isfinite(p.x) && std::isfinite(p.y)) xs.push_back(p.x), ys.push_back(p.y);
  }
  for (const Ceiling& k : c.ceilings) {
    double peak = k.peak_flop_per_s > 0 ? k.peak_flop_per_s : main_peak;
    double bw = k.bytes_per_s > 0 ? k.bytes_per_s : main_bw;
    if (peak > 0 && bw > 0) xs.push_back(peak / bw);  // ridge point
  }
  Axis xa{"arithmetic intensity (FLOP/byte)", true, {}, {}};
  plot::Scale xr = plot::fit(xs, xa, 0, 1);
  if (!xs.empty()) xr.lo /= 10, xr.hi *= 10;
  for (const Ceiling& k : c.ceilings) {
    for (double x : {xr.lo, xr.hi}) {
      double r = roof(k, x);
      if (r > 0 && std::isfinite(r)) ys.push_back(r);
    }
  }
  // A main ceiling with a memory label is drawn as two limbs in two colours,
  // so the memory roof is never hidden under the compute roof.
  const bool split = main && !c.memory_label.empty() && main_peak > 0 && main_bw > 0;
  auto ceiling_colour = [&](std::size_t i) { return colour(split && i > 0 ? i + 2 : i); };
  std::vector<LegendEntry> legend;
  for (std::size_t i = 0; i < c.ceilings.size(); ++i) {
    legend.push_back({c.ceilings[i].label, ceiling_colour(i), i == 0 ? Mark::line : Mark::dashed});
    if (i == 0 && split) legend.push_back({c.memory_label, colour(1), Mark::line});
  }
  if (!c.points.empty()) legend.push_back({"operators", "#333333", Mark::point});
  plot::Frame f = plot::make_frame(legend);
  plot::Scale x = plot::fit(xs, {xa.label, true, xr.lo, xr.hi}, f.plot_x0(), f.plot_x1());
  // Headroom above the highest roof, so the main ceiling does not sit on the frame.
  double y_top = ys.empty() ? 10 : *std::max_element(ys.begin(), ys.end()) * 1.8;
  plot::Scale y = plot::fit(ys, {"FLOP/s", true, {}, y_top}, f.plot_y0(), f.plot_y1());
  std::string o = plot::open_chart(f, c.title, x, plot::ticks(x), xa.label, y, plot::ticks(y), "attainable FLOP/s");
  o += clip_open(f, plot::clip_id("roofline" + c.title + std::to_string(c.points.size())));
  for (std::size_t i = c.ceilings.size(); i-- > 0;) {
    const Ceiling& k = c.ceilings[i];
    std::vector<std::pair<double, double>> pts;
    for (int s = 0; s <= 96; ++s) {
      double vx = std::pow(10.0, std::log10(x.lo) + (std::log10(x.hi) - std::log10(x.lo)) * s / 96.0);
      double vy = roof(k, vx);
      if (y.valid(vy)) pts.emplace_back(x.map(vx), y.map(vy));
    }
    if (pts.size() < 2) continue;
    if (i == 0 && split) {
      // Memory limb (left of the ridge) and compute limb, each in its colour.
      const double ridge = x.map(main_peak / main_bw);
      std::vector<std::pair<double, double>> mem, comp;
      for (const auto& q : pts) (q.first <= ridge ? mem : comp).push_back(q);
      if (!mem.empty() && !comp.empty()) mem.push_back(comp.front());
      if (mem.size() >= 2) o += polyline(mem, colour(1), 3);
      if (comp.size() >= 2) o += polyline(comp, colour(0), 3);
      continue;
    }
    o += polyline(pts, ceiling_colour(i), i == 0 ? 3 : 1.8, i == 0 ? "" : " stroke-dasharray=\"6 4\"");
  }
  o += "</g>\n";
  std::size_t skipped = 0, dropped = 0;
  bool labels = c.points.size() <= 12;
  std::vector<Drawn> drawn;
  for (const Point& p : c.points) {
    if (!drawable(x, y, p.x, p.y)) {
      ++skipped;
      continue;
    }
    drawn.push_back({&p, x.map(p.x), y.map(p.y), labels || p.highlight});
  }
  o += markers_and_labels(drawn, f, [](const Point& p) -> const std::string& {
    static const std::string kDark = "#333333";
    return p.highlight ? colour(2) : kDark;
  }, dropped);
  return o + plot::close_chart(f, legend, notes(skipped_note(skipped, "point"), dropped));
}

std::string svg_scatter(const ScatterChart& c) {
  std::vector<double> xs, ys;
  for (const Point& p : c.points) {
    if (std::isfinite(p.x) && std::isfinite(p.y) && (!c.x.log || p.x > 0) && (!c.y.log || p.y > 0))
      xs.push_back(p.x), ys.push_back(p.y);
  }
  bool any_highlight = std::any_of(c.points.begin(), c.points.end(), [](const Point& p) { return p.highlight; });
  std::vector<LegendEntry> legend;
  if (any_highlight) {
    legend.push_back({c.connect_highlighted ? "Pareto front" : "highlighted", colour(1), Mark::point});
    legend.push_back({"others", colour(0), Mark::point});
  }
  plot::Frame f = plot::make_frame(legend);
  plot::Scale x = plot::fit(padded(xs, c.x.log), c.x, f.plot_x0(), f.plot_x1());
  plot::Scale y = plot::fit(padded(ys, c.y.log), c.y, f.plot_y0(), f.plot_y1());
  std::string o = plot::open_chart(f, c.title, x, plot::ticks(x), c.x.label, y, plot::ticks(y), c.y.label);
  o += clip_open(f, plot::clip_id("scatter" + c.title + c.x.label + c.y.label + std::to_string(c.points.size())));
  std::vector<const Point*> front;
  for (const Point& p : c.points) {
    if (p.highlight && drawable(x, y, p.x, p.y)) front.push_back(&p);
  }
  if (c.connect_highlighted && front.size() >= 2) {
    std::stable_sort(front.begin(), front.end(), [](const Point* a, const Point* b) { return a->x < b->x; });
    std::vector<std::pair<double, double>> pts;
    for (const Point* p : front) pts.emplace_back(x.map(p->x), y.map(p->y));
    o += polyline(pts, colour(1), 2, " stroke-opacity=\"0.7\"");
  }
  o += "</g>\n";
  std::size_t skipped = 0, dropped = 0;
  bool labels = c.points.size() <= 15;
  std::vector<Drawn> drawn;
  for (const Point& p : c.points) {
    if (!drawable(x, y, p.x, p.y)) {
      ++skipped;
      continue;
    }
    drawn.push_back({&p, x.map(p.x), y.map(p.y), labels || p.highlight});
  }
  o += markers_and_labels(drawn, f, [](const Point& p) -> const std::string& { return colour(p.highlight ? 1 : 0); },
                          dropped);
  return o + plot::close_chart(f, legend, notes(skipped_note(skipped, "point"), dropped));
}

std::string svg_line(const LineChart& c) {
  std::vector<double> xs, ys;
  for (const Series& s : c.series) {
    for (std::size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i) {
      if (std::isfinite(s.x[i]) && std::isfinite(s.y[i])) xs.push_back(s.x[i]), ys.push_back(s.y[i]);
    }
  }
  for (const Window& w : c.windows) {
    if (std::isfinite(w.x0) && std::isfinite(w.x1)) xs.push_back(w.x0), xs.push_back(w.x1);
  }
  std::vector<LegendEntry> legend;
  for (std::size_t i = 0; i < c.series.size(); ++i) legend.push_back({c.series[i].name, colour(i), Mark::line});
  if (!c.windows.empty()) legend.push_back({"marked window", "#f5cdb5", Mark::box});
  plot::Frame f = plot::make_frame(legend);
  Axis xa = c.x;
  if (c.x_is_time && !xs.empty()) {
    // Time axes span exactly the data: rounding to 1-2-5 steps means nothing for clock times.
    auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
    if (!xa.min) xa.min = *lo;
    if (!xa.max) xa.max = *hi > *lo ? *hi : *lo + 60;
    xa.log = false;
  }
  plot::Scale x = plot::fit(xs, xa, f.plot_x0(), f.plot_x1());
  plot::Scale y = plot::fit(ys, c.y, f.plot_y0(), f.plot_y1());
  std::string x_label = c.x.label.empty() && c.x_is_time ? "time (UTC)" : c.x.label;
  std::string o = plot::open_chart(f, c.title, x, c.x_is_time ? plot::time_ticks(x) : plot::ticks(x), x_label, y,
                                   plot::ticks(y), c.y.label);
  o += clip_open(f, plot::clip_id("line" + c.title + std::to_string(xs.size())));
  for (const Window& w : c.windows) {
    if (!x.valid(w.x0) || !x.valid(w.x1)) continue;
    double a = x.map(std::min(w.x0, w.x1)), b = x.map(std::max(w.x0, w.x1));
    o += "<g><title>" + escape_xml(w.label) + "</title><rect x=\"" + px(a) + "\" y=\"" + px(f.plot_y1()) + "\" width=\"" +
         px(std::max(1.0, b - a)) + "\" height=\"" + px(f.plot_y0() - f.plot_y1()) + "\" fill=\"" + colour(1) +
         "\" fill-opacity=\"0.13\"/><text x=\"" + px(a + 3) + "\" y=\"" + px(f.plot_y1() + 13) +
         "\" font-size=\"11\" fill=\"#8a3a00\">" + escape_xml(w.label) + "</text></g>\n";
  }
  std::size_t skipped = 0;
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const Series& s = c.series[i];
    std::vector<std::pair<double, double>> run;
    auto flush = [&] {
      if (run.size() >= 2) o += polyline(run, colour(i), 2, " stroke-linejoin=\"round\"");
      else if (run.size() == 1) o += "<circle cx=\"" + px(run[0].first) + "\" cy=\"" + px(run[0].second) + "\" r=\"2.5\" fill=\"" + colour(i) + "\"/>\n";
      run.clear();
    };
    // A gap in the data (NaN, or a value a log axis cannot show) breaks the line.
    for (std::size_t j = 0; j < std::min(s.x.size(), s.y.size()); ++j) {
      if (!drawable(x, y, s.x[j], s.y[j])) {
        ++skipped;
        flush();
        continue;
      }
      run.emplace_back(x.map(s.x[j]), y.map(s.y[j]));
    }
    flush();
  }
  o += "</g>\n";
  return o + plot::close_chart(f, legend, skipped_note(skipped, "value"));
}

std::string svg_bar(const BarChart& c) {
  std::size_t ncat = c.categories.size(), nser = c.series.size();
  auto value = [&](std::size_t s, std::size_t j) {
    double v = j < c.series[s].y.size() ? c.series[s].y[j] : 0;
    return std::isfinite(v) ? v : 0.0;
  };
  bool log = c.y.log && !c.stacked;
  std::vector<double> ys;
  for (std::size_t j = 0; j < ncat; ++j) {
    double pos = 0, neg = 0;
    for (std::size_t s = 0; s < nser; ++s) {
      double v = value(s, j);
      if (c.stacked) (v >= 0 ? pos : neg) += v;
      else ys.push_back(v);
    }
    if (c.stacked) ys.push_back(pos), ys.push_back(neg);
  }
  std::vector<LegendEntry> legend;
  if (nser > 1 || (nser == 1 && !c.series[0].name.empty()))
    for (std::size_t s = 0; s < nser; ++s) legend.push_back({c.series[s].name, colour(s), Mark::box});
  plot::Frame f = plot::make_frame(legend);
  // Category labels: level when each fits its band, else slanted at 40
  // degrees with room below the axis for the longest (long names are cut
  // with an ellipsis; the bar's tooltip keeps the full name).
  auto short_label = [](const std::string& t) {
    std::size_t n = 0, cut = t.size();
    for (std::size_t i = 0; i < t.size(); ++i) {
      if ((static_cast<unsigned char>(t[i]) & 0xC0) != 0x80 && n++ == 28) cut = i;
    }
    return cut < t.size() ? t.substr(0, cut) + "\u2026" : t;
  };
  double widest = 0;
  for (const std::string& cat : c.categories) widest = std::max(widest, plot::text_width(short_label(cat), 12));
  const double band_guess = (f.plot_x1() - f.plot_x0()) / static_cast<double>(std::max<std::size_t>(ncat, 1));
  bool rotate = widest > band_guess - 6;
  if (rotate) {
    f.bottom = std::max(f.bottom, 44 + widest * std::sin(40 * M_PI / 180) + 12);
    // The first slanted label reaches left of its bar: widen the chart on the
    // left (the bands keep their width) so it stays inside.
    const double reach = plot::text_width(short_label(c.categories.front()), 12) * std::cos(40 * M_PI / 180);
    const double extra = reach + 12 * std::sin(40 * M_PI / 180) + 4 - (f.left + band_guess / 2);  // + the glyphs' height
    if (extra > 0) f.left += extra, f.width += extra;
  }
  f.height = std::max(f.height, f.bottom + 300);
  Axis ya = c.y;
  ya.log = log;
  plot::Scale y = plot::fit(ys, ya, f.plot_y0(), f.plot_y1(), !log);
  plot::Scale x{0, static_cast<double>(std::max<std::size_t>(ncat, 1)), false, f.plot_x0(), f.plot_x1()};
  std::string o = plot::open_chart(f, c.title, x, {}, "", y, plot::ticks(y), c.y.label);
  double band = (f.plot_x1() - f.plot_x0()) / static_cast<double>(std::max<std::size_t>(ncat, 1));
  double base = log ? y.lo : std::clamp(0.0, y.lo, y.hi);
  std::size_t skipped = 0;
  for (std::size_t j = 0; j < ncat; ++j) {
    double x0 = f.plot_x0() + band * static_cast<double>(j) + band * 0.15, w = band * 0.7;
    double pos = 0, neg = 0;
    for (std::size_t s = 0; s < nser; ++s) {
      double v = value(s, j), from = base, to = v;
      double bx = x0, bw = w;
      if (c.stacked) {
        double& acc = v >= 0 ? pos : neg;
        from = acc;
        to = acc + v;
        acc = to;
      } else {
        bw = w / static_cast<double>(nser);
        bx = x0 + bw * static_cast<double>(s);
      }
      if (!y.valid(to) || !y.valid(from)) {
        skipped += (v != 0 || log) ? 1 : 0;
        continue;
      }
      double py0 = y.map(std::clamp(from, y.lo, y.hi)), py1 = y.map(std::clamp(to, y.lo, y.hi));
      o += "<rect x=\"" + px(bx) + "\" y=\"" + px(std::min(py0, py1)) + "\" width=\"" + px(std::max(0.5, bw - 1)) +
           "\" height=\"" + px(std::fabs(py1 - py0)) + "\" fill=\"" + colour(s) + "\"><title>" +
           escape_xml(c.series[s].name.empty() ? c.categories[j] : c.categories[j] + " / " + c.series[s].name) + ": " +
           plot::compact(v) + "</title></rect>\n";
    }
    double cx = f.plot_x0() + band * (static_cast<double>(j) + 0.5), ty = f.plot_y0() + 16;
    const std::string label = escape_xml(short_label(c.categories[j]));
    if (rotate)
      o += "<text x=\"" + px(cx) + "\" y=\"" + px(ty) + "\" text-anchor=\"end\" fill=\"#333333\" transform=\"rotate(-40 " + px(cx) +
           " " + px(ty) + ")\">" + label + "</text>\n";
    else
      o += "<text x=\"" + px(cx) + "\" y=\"" + px(ty) + "\" text-anchor=\"middle\" fill=\"#333333\">" + label + "</text>\n";
  }
  if (!log && y.lo < 0 && y.hi > 0)
    o += "<line x1=\"" + px(f.plot_x0()) + "\" y1=\"" + px(y.map(0)) + "\" x2=\"" + px(f.plot_x1()) + "\" y2=\"" + px(y.map(0)) +
         "\" stroke=\"#444444\"/>\n";
  return o + plot::close_chart(f, legend, skipped_note(skipped, "bar"));
}

}  // namespace rooftop::report
