// Documents (headings, paragraphs, lists, tables, figures, code) rendered to
// Markdown with figures as separate SVG files, or to one self-contained HTML
// page: inline CSS and SVG, no scripts, nothing fetched from elsewhere, so a
// report can be mailed or archived as a single file.
#include <algorithm>
#include <set>

#include "report/report.h"

namespace rooftop::report {
namespace {

// `**bold**` and `code` spans of a paragraph, as HTML (text escaped first).
std::string inline_html(const std::string& text) {
  std::string out;
  bool bold = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '`') {
      std::size_t end = text.find('`', i + 1);
      if (end != std::string::npos) {
        out += "<code>" + escape_xml(text.substr(i + 1, end - i - 1)) + "</code>";
        i = end;
        continue;
      }
    }
    if (text.compare(i, 2, "**") == 0 && (bold || text.find("**", i + 2) != std::string::npos)) {
      out += bold ? "</strong>" : "<strong>";
      bold = !bold;
      ++i;
      continue;
    }
    out += escape_xml(std::string(1, text[i]));
  }
  return out;
}

// Markdown keeps **bold** and `code`, but raw HTML in the text must not
// become markup: '<' and '&' outside code spans are escaped.
std::string inline_markdown(const std::string& text) {
  std::string out;
  bool in_code = false;
  for (char c : text) {
    if (c == '`') in_code = !in_code;
    if (!in_code && c == '<') out += "&lt;";
    else if (!in_code && c == '&') out += "&amp;";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

// A file-name-safe stem: letters, digits, '-', '_'; unique within the document.
std::string figure_stem(const Figure& f, std::size_t index, std::set<std::string>& used) {
  std::string stem;
  for (char c : f.name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    stem += ok ? c : '-';
  }
  if (stem.empty()) stem = "figure-" + std::to_string(index);
  std::string unique = stem;
  for (int n = 2; !used.insert(unique).second; ++n) unique = stem + "-" + std::to_string(n);
  return unique;
}

std::string fence_for(const std::string& text) {
  std::string fence = "```";
  while (text.find(fence) != std::string::npos) fence += '`';
  return fence;
}

const char* kCss =
    "body{font-family:Helvetica,Arial,sans-serif;color:#222;background:#fff;margin:0;line-height:1.45}"
    "main{max-width:1000px;margin:0 auto;padding:24px 32px}"
    "h1{font-size:1.8em;border-bottom:2px solid #0072B2;padding-bottom:.2em}"
    "h2{font-size:1.35em;margin-top:1.6em}h3{font-size:1.1em}"
    "table{border-collapse:collapse;margin:1em 0;font-size:.92em}"
    "th,td{border:1px solid #d0d0d0;padding:4px 10px;text-align:left;vertical-align:top}"
    "th{background:#f2f5f8}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}"
    "tbody tr:nth-child(even){background:#fafafa}"
    "code,pre{font-family:Menlo,Consolas,monospace;font-size:.9em;background:#f4f4f4}"
    "pre{padding:10px;overflow-x:auto;border:1px solid #e2e2e2}"
    "figure{margin:1.5em 0}figure svg{max-width:100%;height:auto}"
    "figcaption{color:#555;font-size:.9em;margin-top:.3em}"
    "td:not(:last-child){white-space:nowrap}"
    // Print on A4 or Letter: the page's own margins, no shading, charts and
    // tables kept whole where they fit, headings kept with what follows.
    "@media print{@page{size:auto;margin:15mm}body{font-size:10pt}main{max-width:none;padding:0}"
    "h1{border-bottom-color:#000}h2,h3{break-after:avoid}figure,tr{break-inside:avoid}"
    "tbody tr:nth-child(even),th,code,pre{background:none}table{font-size:8.5pt}"
    "figure svg{width:100%;max-width:100%}a{color:inherit;text-decoration:none}}";

}  // namespace

MarkdownOutput render_markdown(const Document& d, const std::string& asset_prefix) {
  MarkdownOutput out;
  std::string& md = out.markdown;
  if (!d.title.empty()) md += "# " + inline_markdown(d.title) + "\n\n";
  std::set<std::string> used;
  std::size_t figures = 0;
  for (const Block& b : d.blocks) {
    if (const auto* h = std::get_if<Heading>(&b)) {
      md += std::string(static_cast<std::size_t>(std::clamp(h->level, 1, 6)), '#') + " " + inline_markdown(h->text) + "\n\n";
    } else if (const auto* p = std::get_if<Paragraph>(&b)) {
      md += inline_markdown(p->text) + "\n\n";
    } else if (const auto* l = std::get_if<BulletList>(&b)) {
      for (const std::string& item : l->items) md += "- " + inline_markdown(item) + "\n";
      md += "\n";
    } else if (const auto* t = std::get_if<Table>(&b)) {
      md += t->render_markdown() + "\n";
    } else if (const auto* f = std::get_if<Figure>(&b)) {
      std::string file = asset_prefix + figure_stem(*f, ++figures, used) + ".svg";
      out.files.emplace_back(file, f->svg);
      std::string alt;
      for (char c : f->caption) alt += (c == '[' || c == ']' || c == '\n') ? ' ' : c;
      md += "![" + alt + "](" + file + ")\n\n";
      if (!f->caption.empty()) md += "*" + inline_markdown(f->caption) + "*\n\n";
    } else if (const auto* c = std::get_if<Code>(&b)) {
      std::string fence = fence_for(c->text);
      md += fence + "\n" + c->text + (c->text.empty() || c->text.back() == '\n' ? "" : "\n") + fence + "\n\n";
    }
  }
  while (md.size() >= 2 && md.compare(md.size() - 2, 2, "\n\n") == 0) md.pop_back();
  return out;
}

std::string render_html(const Document& d) {
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
                  escape_xml(d.title.empty() ? "rooftop report" : d.title) + "</title>\n<style>" + kCss +
                  "</style>\n</head>\n<body>\n<main>\n";
  if (!d.title.empty()) h += "<h1>" + inline_html(d.title) + "</h1>\n";
  for (const Block& b : d.blocks) {
    if (const auto* hd = std::get_if<Heading>(&b)) {
      std::string n = std::to_string(std::clamp(hd->level, 1, 6));
      h += "<h" + n + ">" + inline_html(hd->text) + "</h" + n + ">\n";
    } else if (const auto* p = std::get_if<Paragraph>(&b)) {
      h += "<p>" + inline_html(p->text) + "</p>\n";
    } else if (const auto* l = std::get_if<BulletList>(&b)) {
      h += "<ul>\n";
      for (const std::string& item : l->items) h += "<li>" + inline_html(item) + "</li>\n";
      h += "</ul>\n";
    } else if (const auto* t = std::get_if<Table>(&b)) {
      h += t->render_html();
    } else if (const auto* f = std::get_if<Figure>(&b)) {
      h += "<figure>\n" + f->svg;
      if (!f->caption.empty()) h += "<figcaption>" + inline_html(f->caption) + "</figcaption>\n";
      h += "</figure>\n";
    } else if (const auto* c = std::get_if<Code>(&b)) {
      h += "<pre><code>" + escape_xml(c->text) + "</code></pre>\n";
    }
  }
  return h + "</main>\n</body>\n</html>\n";
}

}  // namespace rooftop::report
