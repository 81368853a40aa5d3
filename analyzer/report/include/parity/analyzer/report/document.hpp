// Document: a report's content as headings, paragraphs, a verdict, fields
// (name: value lines), bullet lists and tables, built once and rendered as terminal text, Markdown
// or HTML, so the three renderings always say the same thing.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace parity::analyzer {

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> numeric;  // per column: right-aligned; defaults to all but the first
  // Per column: names of ops or kernels, whole in Markdown; in text and HTML
  // cells shortened to kNameWidth, distinct names kept distinct
  // (name_elision.hpp), and in HTML with the whole name as the cell's title.
  std::vector<bool> names = {};
};

struct Block {
  enum class Kind { kHeading, kParagraph, kVerdict, kFields, kBullets, kTable };
  Kind kind = Kind::kParagraph;
  int level = 1;  // headings: 1 or 2
  std::string text;
  std::vector<std::string> items;  // bullets
  Table table;                     // tables; fields as rows of name and value
  std::string id;                  // HTML anchor of a heading; also where the HTML places a chart
  bool passed = true;              // verdicts
};

struct Document {
  std::vector<Block> blocks;
  void heading(std::string text, int level = 2, std::string id = {});
  void paragraph(std::string text);
  // The pass or fail line of a report: a paragraph, coloured in HTML.
  void verdict(std::string text, bool passed);
  // Named values, one a line ("A: run.db").
  void fields(std::vector<std::vector<std::string>> name_value_rows);
  void bullets(std::vector<std::string> items);
  void table(Table table);
};

std::string render_text(const Document& document);
std::string render_markdown(const Document& document);

// What an HTML page adds to its Document: raw HTML placed right after the
// heading with a given id (a chart, styled findings); the blocks of a section
// named in `replaced` give way to its insert.
struct HtmlInserts {
  std::map<std::string, std::string> after_heading;
  std::set<std::string> replaced;
};
// One self-contained page (inline style and SVG, no script, nothing fetched),
// titled by the level-1 heading, with links to every level-2 heading.
std::string render_html(const Document& document, const HtmlInserts& inserts = {});
// An HTML bullet list of the items (escaped), for an insert.
std::string html_bullets(const std::vector<std::string>& items);

}  // namespace parity::analyzer
