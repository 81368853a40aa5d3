// The HTML rendering of a profile report: one self-contained file (inline
// style, inline SVG, no script, nothing fetched) showing the same Document as
// the text and Markdown renderings. Two parts are drawn from the report
// itself rather than from the Document's plain text: the findings, so each
// carries its severity's colour, and the charts, placed after the heading
// whose id names their section.
#include <algorithm>
#include <map>
#include <string>

#include "parity/analyzer/profile/profile_report.hpp"
#include "parity/analyzer/profile/report_document.hpp"
#include "parity/analyzer/report_format.hpp"
#include "svg_charts.hpp"

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

// The same default as the text and Markdown tables: all but the first column.
bool is_numeric(const Table& table, std::size_t column) {
  return column < table.numeric.size() ? table.numeric[column] : column > 0;
}

void write_row(const Table& table, const std::vector<std::string>& row, const char* cell,
               std::ostream& out) {
  out << "<tr>";
  for (std::size_t c = 0; c < table.header.size(); ++c)
    out << '<' << cell << (is_numeric(table, c) ? " class=\"num\"" : "") << '>'
        << (c < row.size() ? escape(row[c]) : "") << "</" << cell << '>';
  out << "</tr>\n";
}

void write_table(const Table& table, std::ostream& out) {
  out << "<table>\n<thead>";
  write_row(table, table.header, "th", out);
  out << "</thead>\n<tbody>\n";
  for (const auto& row : table.rows) write_row(table, row, "td", out);
  out << "</tbody>\n</table>\n";
}

void write_heading(const Block& block, std::ostream& out) {
  const int level = std::clamp(block.level, 1, 6);
  out << "<h" << level;
  if (!block.id.empty()) out << " id=\"" << escape(block.id) << '"';
  out << '>' << escape(block.text) << "</h" << level << ">\n";
}

// The verdict line ("PASS: ...", "FAIL: ...") stands out in its colour.
void write_paragraph(const Block& block, std::ostream& out) {
  const char* verdict = block.text.starts_with("FAIL: ")   ? " class=\"verdict fail\""
                        : block.text.starts_with("PASS: ") ? " class=\"verdict pass\""
                                                           : "";
  out << "<p" << verdict << '>' << escape(block.text) << "</p>\n";
}

void write_bullets(const std::vector<std::string>& items, std::ostream& out) {
  out << "<ul>\n";
  for (const std::string& item : items) out << "<li>" << escape(item) << "</li>\n";
  out << "</ul>\n";
}

void write_block(const Block& block, std::ostream& out) {
  switch (block.kind) {
    case Block::Kind::kHeading:
      write_heading(block, out);
      break;
    case Block::Kind::kParagraph:
      write_paragraph(block, out);
      break;
    case Block::Kind::kBullets:
      write_bullets(block.items, out);
      break;
    case Block::Kind::kTable:
      write_table(block.table, out);
      break;
  }
}

void write_finding(const Finding& finding, std::ostream& out) {
  const std::string severity(severity_name(finding.severity));
  out << "<div class=\"finding " << severity << "\">\n<p><span class=\"severity\">" << severity
      << "</span> <code>" << escape(finding.rule) << "</code>";
  if (finding.rank) out << " (rank " << *finding.rank << ')';
  out << ": " << escape(finding.title) << "</p>\n";
  if (!finding.evidence.empty()) write_bullets(finding.evidence, out);
  out << "<p class=\"next\">next: " << escape(finding.next_step) << "</p>\n</div>\n";
}

// Links to every section, for a report longer than a screen.
void write_nav(const Document& document, std::ostream& out) {
  out << "<nav>";
  for (const Block& block : document.blocks)
    if (block.kind == Block::Kind::kHeading && block.level == 2 && !block.id.empty())
      out << "<a href=\"#" << escape(block.id) << "\">" << escape(block.text) << "</a>";
  out << "</nav>\n";
}

// Charts by the id of the section they belong to; like the Document's
// detailed sections, they show the focus rank.
std::map<std::string, std::string> section_charts(const ProfileReport& report) {
  const RankProfile& focus = report.focus_rank();
  std::map<std::string, std::string> charts{{"steps", step_chart(focus.steps)},
                                            {"ops", op_chart(focus.ops.ops, kTopRows)},
                                            {"data", queue_chart(focus.data.queues)},
                                            {"communication", comm_chart(focus.comm)}};
  if (report.ranks.size() > 1) charts["ranks"] = rank_chart(report.rank_comparison);
  return charts;
}

std::string page_title(const Document& document) {
  for (const Block& block : document.blocks)
    if (block.kind == Block::Kind::kHeading && block.level == 1) return block.text;
  return "Parity profile report";
}

void write_body(const Document& document, const ProfileReport& report, std::ostream& out) {
  const std::map<std::string, std::string> charts = section_charts(report);
  // Inside the findings section, whose text blocks the report's findings replace.
  bool replaced = false;
  for (const Block& block : document.blocks) {
    if (block.kind != Block::Kind::kHeading) {
      if (!replaced) write_block(block, out);
      continue;
    }
    write_heading(block, out);
    if (block.level == 1) write_nav(document, out);
    if (const auto chart = charts.find(block.id); chart != charts.end() && !chart->second.empty())
      out << "<figure class=\"chart\">\n" << chart->second << "\n</figure>\n";
    replaced = block.id == "findings" && !report.findings.empty();
    if (replaced)
      for (const Finding& finding : report.findings) write_finding(finding, out);
  }
}

}  // namespace

void write_html(const ProfileReport& report, std::ostream& out) {
  const Document document = report_document(report);
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<title>" << escape(page_title(document)) << "</title>\n<style>" << kStyle
      << "</style>\n</head>\n<body>\n";
  write_body(document, report, out);
  out << "</body>\n</html>\n";
}

}  // namespace parity::analyzer
