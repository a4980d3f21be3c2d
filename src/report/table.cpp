// Tables rendered as monospace text, Markdown and HTML. Widths count UTF-8
// code points (not bytes), so "µs" or "—" do not push columns out of line.
#include <algorithm>

#include "report/report.h"

namespace rooftop::report {
namespace {

// Display width: one column per code point (continuation bytes don't count).
std::size_t width(const std::string& s) {
  std::size_t w = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) ++w;
  }
  return w;
}

std::string pad(const std::string& s, std::size_t to, Align a) {
  std::size_t w = width(s);
  if (w >= to) return s;
  std::string fill(to - w, ' ');
  return a == Align::right ? fill + s : s + fill;
}

std::size_t column_count(const Table& t) {
  std::size_t n = t.headers.size();
  for (const auto& row : t.rows) n = std::max(n, row.size());
  return n;
}

std::string cell(const std::vector<std::string>& row, std::size_t i) { return i < row.size() ? row[i] : std::string(); }

Align align_of(const Table& t, std::size_t i) { return i < t.align.size() ? t.align[i] : Align::left; }

std::vector<std::size_t> widths(const Table& t, std::size_t min_width) {
  std::vector<std::size_t> w(column_count(t), min_width);
  for (std::size_t i = 0; i < w.size(); ++i) {
    w[i] = std::max(w[i], width(cell(t.headers, i)));
    for (const auto& row : t.rows) w[i] = std::max(w[i], width(cell(row, i)));
  }
  return w;
}

// Markdown cells cannot hold '|' or newlines.
std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

}  // namespace

std::string Table::render_text() const {
  std::vector<std::size_t> w = widths(*this, 0);
  auto line = [&](const std::vector<std::string>& row) {
    std::string out;
    for (std::size_t i = 0; i < w.size(); ++i) {
      bool last = i + 1 == w.size();
      std::string c = (last && align_of(*this, i) == Align::left) ? cell(row, i) : pad(cell(row, i), w[i], align_of(*this, i));
      out += c;
      if (!last) out += "  ";
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out;
  if (!headers.empty()) {
    out += line(headers);
    std::size_t total = 0;
    for (std::size_t x : w) total += x;
    total += w.empty() ? 0 : 2 * (w.size() - 1);
    // A free-text last column (left-aligned, unpadded) may hold sentences;
    // the rule stops at 80 columns rather than run under the longest one.
    if (!w.empty() && align_of(*this, w.size() - 1) == Align::left) {
      const std::size_t head = total - w.back() + width(cell(headers, w.size() - 1));
      total = std::min(total, std::max<std::size_t>(head, 80));
    }
    out += std::string(total, '-') + "\n";
  }
  for (const auto& row : rows) out += line(row);
  return out;
}

std::string Table::render_markdown() const {
  std::vector<std::vector<std::string>> cells;
  Table esc = *this;
  for (auto& h : esc.headers) h = md_cell(h);
  for (auto& row : esc.rows)
    for (auto& c : row) c = md_cell(c);
  std::vector<std::size_t> w = widths(esc, 3);
  auto line = [&](const std::vector<std::string>& row) {
    std::string out = "|";
    for (std::size_t i = 0; i < w.size(); ++i) out += " " + pad(cell(row, i), w[i], align_of(*this, i)) + " |";
    return out + "\n";
  };
  std::string out = line(esc.headers);
  out += "|";
  for (std::size_t i = 0; i < w.size(); ++i) {
    bool right = align_of(*this, i) == Align::right;
    out += " " + (right ? std::string(w[i] - 1, '-') + ":" : std::string(w[i], '-')) + " |";
  }
  out += "\n";
  for (const auto& row : esc.rows) out += line(row);
  return out;
}

std::string Table::render_html() const {
  std::size_t n = column_count(*this);
  auto attr = [&](std::size_t i) { return align_of(*this, i) == Align::right ? " class=\"num\"" : ""; };
  std::string out = "<table>\n";
  if (!headers.empty()) {
    out += "<thead><tr>";
    for (std::size_t i = 0; i < n; ++i) out += std::string("<th") + attr(i) + ">" + escape_xml(cell(headers, i)) + "</th>";
    out += "</tr></thead>\n";
  }
  out += "<tbody>\n";
  for (const auto& row : rows) {
    out += "<tr>";
    for (std::size_t i = 0; i < n; ++i) out += std::string("<td") + attr(i) + ">" + escape_xml(cell(row, i)) + "</td>";
    out += "</tr>\n";
  }
  out += "</tbody>\n</table>\n";
  return out;
}

std::string escape_xml(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        // Control characters other than tab/newline are not allowed in XML 1.0.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r') out += ' ';
        else out += c;
    }
  }
  return out;
}

}  // namespace rooftop::report
