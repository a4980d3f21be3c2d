// SVG charts: well-formed, points inside the plot area, readable ticks, and
// graceful handling of values a log axis cannot show.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <regex>

#include "report/plot.h"
#include "report/report.h"
#include "unit/report/xml_check.h"

namespace rooftop::report {
namespace {

using testing::xml_problem;

struct Rect {
  double x0, y0, x1, y1;
};

// The plot area: the framed rectangle every chart draws.
Rect plot_area(const std::string& svg) {
  std::smatch m;
  std::regex re(R"re(<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" fill="none" stroke="#444444"/>)re");
  EXPECT_TRUE(std::regex_search(svg, m, re));
  if (m.empty()) return {0, 0, 0, 0};
  double x = std::stod(m[1]), y = std::stod(m[2]);
  return {x, y, x + std::stod(m[3]), y + std::stod(m[4])};
}

// Centres of the data markers (each sits in a <g> with a tooltip <title>).
std::vector<std::pair<double, double>> markers(const std::string& svg) {
  std::vector<std::pair<double, double>> out;
  std::regex re(R"re(</title><circle cx="([-\d.]+)" cy="([-\d.]+)")re");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it)
    out.emplace_back(std::stod((*it)[1]), std::stod((*it)[2]));
  return out;
}

void expect_clean(const std::string& svg) {
  EXPECT_EQ(xml_problem(svg), "") << svg;
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  EXPECT_EQ(svg.find("inf"), std::string::npos);
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
}

void expect_inside(const std::string& svg, std::size_t expected_points) {
  Rect r = plot_area(svg);
  auto pts = markers(svg);
  EXPECT_EQ(pts.size(), expected_points);
  for (auto [x, y] : pts) {
    EXPECT_GE(x, r.x0 - 0.05);
    EXPECT_LE(x, r.x1 + 0.05);
    EXPECT_GE(y, r.y0 - 0.05);
    EXPECT_LE(y, r.y1 + 0.05);
  }
}

TEST(Ticks, LinearUsesOneTwoFiveSteps) {
  plot::Scale s = plot::fit({0.3, 9.7}, Axis{}, 0, 100);
  EXPECT_DOUBLE_EQ(s.lo, 0);
  EXPECT_DOUBLE_EQ(s.hi, 10);
  std::vector<std::string> labels;
  for (const plot::Tick& t : plot::ticks(s)) labels.push_back(t.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"0", "2", "4", "6", "8", "10"}));
}

TEST(Ticks, LogUsesDecadesWithSiLabels) {
  Axis a;
  a.log = true;
  plot::Scale s = plot::fit({3, 4e4}, a, 0, 100);
  EXPECT_DOUBLE_EQ(s.lo, 1);
  EXPECT_DOUBLE_EQ(s.hi, 1e5);
  std::vector<std::string> labels;
  for (const plot::Tick& t : plot::ticks(s)) labels.push_back(t.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"1", "10", "100", "1k", "10k", "100k"}));
  // A narrow log range gets 2 and 5 between the decades.
  std::vector<double> narrow;
  for (const plot::Tick& t : plot::ticks(plot::fit({2, 30}, a, 0, 100))) narrow.push_back(t.value);
  EXPECT_EQ(narrow, (std::vector<double>{1, 2, 5, 10, 20, 50, 100}));
}

TEST(Ticks, LogIgnoresNonPositiveValuesAndLimits) {
  Axis a;
  a.log = true;
  a.min = -1;  // impossible on a log axis: ignored
  plot::Scale s = plot::fit({0, -5, 20, std::numeric_limits<double>::quiet_NaN(), 700}, a, 0, 100);
  EXPECT_DOUBLE_EQ(s.lo, 10);
  EXPECT_DOUBLE_EQ(s.hi, 1000);
  EXPECT_FALSE(s.valid(0));
  EXPECT_FALSE(s.valid(-3));
  EXPECT_TRUE(std::isfinite(s.map(0)));
}

TEST(Ticks, CompactLabelsAndTimes) {
  EXPECT_EQ(plot::compact(1e12), "1T");
  EXPECT_EQ(plot::compact(2.5e3), "2.5k");
  EXPECT_EQ(plot::compact(0.1), "0.1");
  EXPECT_EQ(plot::compact(0.30000000000000004), "0.3");
  plot::Scale t{0, 3600, false, 0, 100};
  std::vector<std::string> labels;
  for (const plot::Tick& k : plot::time_ticks(t)) labels.push_back(k.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"00:00", "00:10", "00:20", "00:30", "00:40", "00:50", "01:00"}));
  plot::Scale days{0, 5 * 86400.0, false, 0, 100};
  EXPECT_EQ(plot::time_ticks(days).front().label, "01-01");
}

TEST(Roofline, CeilingsAndPointsInsideThePlot) {
  RooflineChart c;
  c.title = "H100 <SXM> & friends";
  c.ceilings = {{"fp16 989 TFLOP/s, HBM 3.35 TB/s", 989e12, 3.35e12}, {"fp32 67 TFLOP/s", 67e12, 0}, {"L2 12 TB/s", 0, 12e12}};
  c.points = {{"gemm", 300, 800e12, true}, {"softmax", 0.5, 1.5e12, false}, {"decode attn", 1, 3e12, false}};
  std::string svg = svg_roofline(c);
  expect_clean(svg);
  expect_inside(svg, 3);
  EXPECT_NE(svg.find("H100 &lt;SXM&gt; &amp; friends"), std::string::npos);
  EXPECT_NE(svg.find("arithmetic intensity (FLOP/byte)"), std::string::npos);
  EXPECT_NE(svg.find("fp32 67 TFLOP/s"), std::string::npos);
  EXPECT_NE(svg.find(">1P<"), std::string::npos);  // decade ticks with SI labels
}

TEST(Roofline, BadPointsAreSkippedNotNaN) {
  RooflineChart c;
  c.ceilings = {{"peak", 1e12, 1e11}};
  c.points = {{"ok", 10, 5e11, false},
              {"zero", 0, 1e11, false},
              {"negative", 5, -1, false},
              {"nan", std::numeric_limits<double>::quiet_NaN(), 1, false}};
  std::string svg = svg_roofline(c);
  EXPECT_EQ(xml_problem(svg), "");
  expect_inside(svg, 1);
  EXPECT_NE(svg.find("3 points not drawn"), std::string::npos);
  EXPECT_EQ(svg.find("NaN"), std::string::npos);
}

// Text extents with the charts' fixed metric (plot::text_box) of every
// visible <text>, rotated ones aside.
std::vector<plot::Box> label_boxes(const std::string& svg) {
  std::vector<plot::Box> out;
  std::regex re(R"re(<text x="([-\d.]+)" y="([-\d.]+)"([^>]*)>([^<]*)</text>)re");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it) {
    std::string attrs = (*it)[3];
    if (attrs.find("rotate") != std::string::npos) continue;
    std::smatch m;
    double size = std::regex_search(attrs, m, std::regex(R"re(font-size="([\d.]+)")re")) ? std::stod(m[1]) : 12;
    plot::Anchor a = attrs.find("\"end\"") != std::string::npos      ? plot::Anchor::end
                     : attrs.find("\"middle\"") != std::string::npos ? plot::Anchor::middle
                                                                    : plot::Anchor::start;
    out.push_back(plot::text_box((*it)[4], std::stod((*it)[1]), std::stod((*it)[2]), size, a));
  }
  return out;
}

TEST(Roofline, CrowdedLabelsNeverOverlap) {
  RooflineChart c;
  c.title = "crowded";
  c.ceilings = {{"compute roof", 1e15, 2e12}};
  c.memory_label = "memory roof: HBM 2 TB/s";
  for (int i = 0; i < 10; ++i) {
    c.points.push_back({"layers.ffn.op" + std::to_string(i), 400.0 + i, 6e14 + 1e12 * i, i < 3});
  }
  std::string svg = svg_roofline(c);
  expect_clean(svg);
  expect_inside(svg, 10);
  std::vector<plot::Box> boxes = label_boxes(svg);
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    for (std::size_t j = i + 1; j < boxes.size(); ++j) EXPECT_FALSE(boxes[i].overlaps(boxes[j])) << i << " " << j;
  }
  // Labels that fit nowhere are counted under the chart, never drawn on top.
  EXPECT_NE(svg.find("left out where they would overlap"), std::string::npos);
  // The memory roof has its own legend entry and colour.
  EXPECT_NE(svg.find(">memory roof: HBM 2 TB/s<"), std::string::npos);
}

TEST(Bar, LongCategoriesAreSlantedNotRunTogether) {
  BarChart b;
  b.title = "TCO";
  b.y = {"USD", false, 0.0, {}};
  b.categories = {"nvidia-h100-sxm5-80gb x3", "amd-instinct-mi300x x2", "intel-gaudi3 x4", "nvidia-rtx-4090 x8"};
  b.series = {{"capex", {0, 1, 2, 3}, {3e4, 2e4, 1e4, 5e3}}};
  std::string svg = svg_bar(b);
  expect_clean(svg);
  EXPECT_NE(svg.find("rotate(-40"), std::string::npos);
}

TEST(Roofline, EmptyChartIsStillValid) {
  std::string svg = svg_roofline(RooflineChart{});
  expect_clean(svg);
}

TEST(Scatter, LogAxesAndParetoFront) {
  ScatterChart c;
  c.title = "cost vs throughput";
  c.x = {"USD per hour", true, {}, {}};
  c.y = {"tokens/s", true, {}, {}};
  c.points = {{"a", 2, 100, true}, {"b", 4, 90, false}, {"c", 8, 400, true}, {"d", 0, 50, false}, {"e", 1, 10, true}};
  std::string svg = svg_scatter(c);
  expect_clean(svg);
  expect_inside(svg, 4);
  EXPECT_NE(svg.find("Pareto front"), std::string::npos);
  EXPECT_NE(svg.find("1 point not drawn"), std::string::npos);
  // The front joins the 3 highlighted points in x order.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(svg, m, std::regex(R"re(<polyline[^>]*points="([^"]*)")re")));
  std::string pts = m[1];
  EXPECT_EQ(std::count(pts.begin(), pts.end(), ','), 3);
}

TEST(Scatter, ExplicitLinearRangeKeepsPointsInsideByClipping) {
  ScatterChart c;
  c.x = {"x", false, 0, 10};
  c.y = {"y", false, 0, 10};
  c.points = {{"in", 5, 5, false}};
  std::string svg = svg_scatter(c);
  expect_clean(svg);
  expect_inside(svg, 1);
  EXPECT_NE(svg.find(">10<"), std::string::npos);
}

TEST(Line, TimeAxisWindowsAndGaps) {
  LineChart c;
  c.title = "GPU utilisation";
  c.y = {"utilisation %", false, 0, 100};
  c.x_is_time = true;
  double t0 = 1700000000;
  Series s{"gpu0", {}, {}};
  for (int i = 0; i < 60; ++i) {
    s.x.push_back(t0 + 60 * i);
    s.y.push_back(i == 30 ? std::numeric_limits<double>::quiet_NaN() : 50 + i % 7);
  }
  c.series = {s, Series{"gpu1", {t0, t0 + 3540}, {10, 20}}};
  c.windows = {{t0 + 600, t0 + 1200, "idle <10%"}};
  std::string svg = svg_line(c);
  expect_clean(svg);
  EXPECT_NE(svg.find("time (UTC)"), std::string::npos);
  EXPECT_NE(svg.find("idle &lt;10%"), std::string::npos);
  EXPECT_NE(svg.find(">22:"), std::string::npos);  // 1700000000 is 22:13 UTC
  EXPECT_NE(svg.find("1 value not drawn"), std::string::npos);
  std::size_t lines = 0;
  for (std::size_t pos = 0; (pos = svg.find("<polyline", pos)) != std::string::npos; ++pos) ++lines;
  EXPECT_EQ(lines, 3u);  // gpu0 broken in two by the gap, gpu1 whole
}

TEST(Bar, StackedAndGroupedStartAtZero) {
  BarChart c;
  c.title = "time per phase";
  c.y = {"seconds", false, {}, {}};
  c.categories = {"a100", "h100"};
  c.series = {{"compute", {}, {2, 1}}, {"memory", {}, {3, 1.5}}};
  std::string stacked = svg_bar(c);
  expect_clean(stacked);
  EXPECT_GT(plot_area(stacked).x0, 0);
  std::regex bar(R"re(<rect x="[\d.]+" y="([\d.]+)" width="[\d.]+" height="([\d.]+)" fill="#[0-9A-Fa-f]{6}"><title>)re");
  std::vector<double> bottoms;
  for (auto it = std::sregex_iterator(stacked.begin(), stacked.end(), bar); it != std::sregex_iterator(); ++it)
    bottoms.push_back(std::stod((*it)[1]) + std::stod((*it)[2]));
  ASSERT_EQ(bottoms.size(), 4u);
  EXPECT_NEAR(bottoms[0], plot_area(stacked).y1, 0.2);  // first segment sits on the axis
  EXPECT_NEAR(bottoms[2], plot_area(stacked).y1, 0.2);
  c.stacked = false;
  c.y.log = true;
  c.series[1].y[0] = 0;  // cannot be drawn on a log axis
  std::string grouped = svg_bar(c);
  expect_clean(grouped);
  EXPECT_NE(grouped.find("1 bar not drawn"), std::string::npos);
}

}  // namespace
}  // namespace rooftop::report
