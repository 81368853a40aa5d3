// The HTML rendering of a Document: one self-contained page (inline style,
// no script, nothing fetched) saying what the text and Markdown renderings
// say, with whatever raw HTML (charts, styled findings) its report inserts
// after a heading.
#include <algorithm>
#include <sstream>

#include "parity/analyzer/report/document.hpp"
#include "parity/analyzer/report_format.hpp"
#include "table_layout.hpp"

namespace parity::analyzer {
namespace {

constexpr const char* kStyle = R"(
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #222;
       max-width: 960px; margin: 2em auto; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: .3em; }
h2 { font-size: 1.25em; margin-top: 1.8em; border-bottom: 1px solid #ddd; padding-bottom: .2em; }
nav { font-size: .9em; margin: .5em 0 1em; }
nav a { margin-right: 1em; }
table { border-collapse: collapse; margin: .6em 0; font-size: .92em; }
th, td { padding: .25em .6em; border-bottom: 1px solid #eee; text-align: left; vertical-align: top; }
th { border-bottom: 2px solid #ccc; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tbody tr:nth-child(even) { background: #fafafa; }
.verdict { font-weight: 600; padding: .4em .7em; border-radius: 4px; }
.verdict.pass { background: #e6f4ea; color: #1e6b34; }
.verdict.fail { background: #fde8e8; color: #a4161a; }
.finding { border-left: 4px solid #9e9e9e; background: #f6f6f6; padding: .1em .8em; margin: .7em 0; }
.finding p { margin: .4em 0; }
.finding ul { margin: .2em 0; }
.severity { display: inline-block; min-width: 5em; font-size: .8em; font-weight: 600;
            text-transform: uppercase; color: #666; }
.finding.error { border-color: #c62828; background: #fdecea; }
.finding.error .severity { color: #c62828; }
.finding.warning { border-color: #e69500; background: #fff6e0; }
.finding.warning .severity { color: #a86b00; }
.next { font-style: italic; }
figure.chart { margin: .8em 0; overflow-x: auto; }
svg.chart { max-width: 100%; height: auto; }
)";

std::string escape(const std::string& text) { return xml_escape(text); }

// A body row: a shortened name cell carries the whole name as its title.
void write_row(const Table& table, const std::vector<std::string>& full,
               const std::vector<std::string>& shown, std::ostream& out) {
  out << "<tr>";
  for (std::size_t c = 0; c < table.header.size(); ++c) {
    const std::string cell = c < shown.size() ? shown[c] : "";
    out << "<td" << (is_numeric(table, c) ? " class=\"num\"" : "");
    if (c < full.size() && full[c] != cell) out << " title=\"" << escape(full[c]) << '"';
    out << '>' << escape(cell) << "</td>";
  }
  out << "</tr>\n";
}

void write_table(const Table& table, std::ostream& out) {
  out << "<table>\n<thead><tr>";
  for (std::size_t c = 0; c < table.header.size(); ++c)
    out << "<th" << (is_numeric(table, c) ? " class=\"num\"" : "") << '>' << escape(table.header[c])
        << "</th>";
  out << "</tr></thead>\n<tbody>\n";
  const std::vector<std::vector<std::string>> shown = shortened_rows(table);
  for (std::size_t r = 0; r < table.rows.size(); ++r)
    write_row(table, table.rows[r], shown[r], out);
  out << "</tbody>\n</table>\n";
}

void write_heading(const Block& block, std::ostream& out) {
  const int level = std::clamp(block.level, 1, 6);
  out << "<h" << level;
  if (!block.id.empty()) out << " id=\"" << escape(block.id) << '"';
  out << '>' << escape(block.text) << "</h" << level << ">\n";
}

void write_block(const Block& block, std::ostream& out) {
  switch (block.kind) {
    case Block::Kind::kHeading:
      write_heading(block, out);
      break;
    case Block::Kind::kParagraph:
      out << "<p>" << escape(block.text) << "</p>\n";
      break;
    case Block::Kind::kVerdict:
      out << "<p class=\"verdict " << (block.passed ? "pass" : "fail") << "\">"
          << escape(block.text) << "</p>\n";
      break;
    case Block::Kind::kFields:
      out << "<table class=\"fields\">\n<tbody>\n";
      for (const auto& row : block.table.rows)
        out << "<tr><th>" << escape(row[0]) << "</th><td>" << escape(row[1]) << "</td></tr>\n";
      out << "</tbody>\n</table>\n";
      break;
    case Block::Kind::kBullets:
      out << html_bullets(block.items);
      break;
    case Block::Kind::kTable:
      write_table(block.table, out);
      break;
  }
}

// Links to every section, for a report longer than a screen.
void write_nav(const Document& document, std::ostream& out) {
  out << "<nav>";
  for (const Block& block : document.blocks)
    if (block.kind == Block::Kind::kHeading && block.level == 2 && !block.id.empty())
      out << "<a href=\"#" << escape(block.id) << "\">" << escape(block.text) << "</a>";
  out << "</nav>\n";
}

std::string page_title(const Document& document) {
  for (const Block& block : document.blocks)
    if (block.kind == Block::Kind::kHeading && block.level == 1) return block.text;
  return "Parity report";
}

}  // namespace

std::string html_bullets(const std::vector<std::string>& items) {
  std::string out = "<ul>\n";
  for (const std::string& item : items) out += "<li>" + escape(item) + "</li>\n";
  return out + "</ul>\n";
}

std::string render_html(const Document& document, const HtmlInserts& inserts) {
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<title>" << escape(page_title(document)) << "</title>\n<style>" << kStyle
      << "</style>\n</head>\n<body>\n";
  bool replaced = false;  // inside a section whose blocks its insert replaces
  for (const Block& block : document.blocks) {
    if (block.kind != Block::Kind::kHeading) {
      if (!replaced) write_block(block, out);
      continue;
    }
    write_heading(block, out);
    if (block.level == 1) write_nav(document, out);
    const auto insert = inserts.after_heading.find(block.id);
    if (insert != inserts.after_heading.end()) out << insert->second;
    replaced = !block.id.empty() && inserts.replaced.contains(block.id);
  }
  out << "</body>\n</html>\n";
  return out.str();
}

}  // namespace parity::analyzer
