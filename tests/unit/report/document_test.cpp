// Tables (text, Markdown, HTML) and documents (Markdown with SVG files,
// self-contained HTML).
#include <gtest/gtest.h>

#include "report/report.h"
#include "core/text.h"
#include "unit/report/xml_check.h"

namespace rooftop::report {
namespace {

using testing::xml_problem;

std::size_t code_points(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

Table sample() {
  Table t;
  t.headers = {"device", "latency", "note"};
  t.align = {Align::left, Align::right, Align::left};
  t.rows = {{"h100", "12 µs", "fast | new"}, {"t4", "1.5 ms", "<old>"}, {"a-very-long-name", "3 s"}};
  return t;
}

TEST(Table, TextColumnsLineUpWithUtf8) {
  std::string text = sample().render_text();
  std::vector<std::string> lines = split(text, '\n');
  ASSERT_EQ(lines.size(), 6u);  // header, rule, 3 rows, trailing ""
  EXPECT_EQ(lines[0], "device            latency  note");
  EXPECT_EQ(lines[1], std::string(lines[1].size(), '-'));
  EXPECT_EQ(lines[2], "h100                12 µs  fast | new");
  EXPECT_EQ(lines[3], "t4                 1.5 ms  <old>");
  EXPECT_EQ(lines[4], "a-very-long-name      3 s");
}

TEST(Table, RuleStopsAt80ColumnsUnderFreeText) {
  Table t = sample();
  t.rows.push_back({"x", "1 s", std::string(200, 'w')});
  std::vector<std::string> lines = split(t.render_text(), '\n');
  EXPECT_EQ(lines[1], std::string(80, '-'));
  // A right-aligned last column is padded, so the rule spans all of it.
  t.align.back() = Align::right;
  lines = split(t.render_text(), '\n');
  EXPECT_EQ(lines[1].size(), lines[0].size());
  EXPECT_GT(lines[1].size(), 200u);
}

TEST(Table, MarkdownAlignsAndEscapesPipes) {
  std::string md = sample().render_markdown();
  std::vector<std::string> lines = split(md, '\n');
  lines.pop_back();
  ASSERT_EQ(lines.size(), 5u);
  for (const std::string& l : lines) {
    EXPECT_EQ(code_points(l), code_points(lines[0])) << l;
    EXPECT_EQ(l.front(), '|');
    EXPECT_EQ(l.back(), '|');
  }
  EXPECT_NE(lines[1].find("-:"), std::string::npos);  // right-aligned column
  EXPECT_NE(md.find("fast \\| new"), std::string::npos);
}

TEST(Table, HtmlEscapesCells) {
  std::string html = sample().render_html();
  EXPECT_EQ(xml_problem(html), "");
  EXPECT_NE(html.find("&lt;old&gt;"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"num\">12 µs</td>"), std::string::npos);
}

TEST(Escape, AllSpecialCharacters) {
  EXPECT_EQ(escape_xml("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(escape_xml(std::string("x\x01y")), "x y");
}

Document sample_doc() {
  Document d;
  d.title = "Advice <draft>";
  ScatterChart s;
  s.title = "cost";
  s.points = {{"a", 1, 2, true}};
  d.blocks = {Heading{2, "Summary"},
              Paragraph{"Use **h100** with `--batch 8` <script>alert(1)</script>"},
              BulletList{{"fits: yes", "bound: memory"}},
              sample(),
              Figure{svg_scatter(s), "Cost vs throughput", "cost"},
              Figure{svg_scatter(s), "Again", "cost"},
              Code{"rooftop advise x.yaml\n```\n"}};
  return d;
}

TEST(Document, MarkdownWritesFiguresAsFiles) {
  MarkdownOutput out = render_markdown(sample_doc(), "advice-");
  ASSERT_EQ(out.files.size(), 2u);
  EXPECT_EQ(out.files[0].first, "advice-cost.svg");
  EXPECT_EQ(out.files[1].first, "advice-cost-2.svg");  // names stay unique
  EXPECT_EQ(xml_problem(out.files[0].second), "");
  const std::string& md = out.markdown;
  EXPECT_EQ(md.rfind("# Advice &lt;draft>\n", 0), 0u);
  EXPECT_NE(md.find("## Summary"), std::string::npos);
  EXPECT_NE(md.find("Use **h100** with `--batch 8` &lt;script>"), std::string::npos);
  EXPECT_NE(md.find("- bound: memory"), std::string::npos);
  EXPECT_NE(md.find("![Cost vs throughput](advice-cost.svg)"), std::string::npos);
  EXPECT_NE(md.find("````\nrooftop advise x.yaml\n```\n````"), std::string::npos);  // longer fence
  EXPECT_NE(md.find("| h100 "), std::string::npos);
}

TEST(Document, HtmlIsSelfContained) {
  std::string html = render_html(sample_doc());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;"), std::string::npos);
  EXPECT_NE(html.find("<strong>h100</strong>"), std::string::npos);
  EXPECT_NE(html.find("<code>--batch 8</code>"), std::string::npos);
  EXPECT_NE(html.find("<style>"), std::string::npos);
  EXPECT_NE(html.find("<figcaption>Cost vs throughput</figcaption>"), std::string::npos);
  // No external references: the only URL is the SVG namespace.
  std::string rest = html;
  for (std::size_t p; (p = rest.find("http://www.w3.org/2000/svg")) != std::string::npos;) rest.erase(p, 26);
  EXPECT_EQ(rest.find("http"), std::string::npos);
  EXPECT_EQ(rest.find("src="), std::string::npos);
  // The body (everything after <main>) is well-formed XML.
  std::size_t b = html.find("<main>"), e = html.find("</main>");
  ASSERT_NE(b, std::string::npos);
  EXPECT_EQ(xml_problem(html.substr(b, e + 7 - b)), "");
}

}  // namespace
}  // namespace rooftop::report
