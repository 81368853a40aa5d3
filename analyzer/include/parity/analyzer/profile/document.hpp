// Document: a report's content as headings, paragraphs, bullet lists and
// tables, built once and rendered as terminal text, Markdown or HTML, so the
// three renderings always say the same thing.
#pragma once

#include <string>
#include <vector>

namespace parity::analyzer {

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> numeric;  // per column: right-aligned; defaults to all but the first
};

struct Block {
  enum class Kind { kHeading, kParagraph, kBullets, kTable };
  Kind kind = Kind::kParagraph;
  int level = 1;  // headings: 1 or 2
  std::string text;
  std::vector<std::string> items;  // bullets
  Table table;
  std::string id;  // HTML anchor of a heading; also where the HTML places a chart
};

struct Document {
  std::vector<Block> blocks;
  void heading(std::string text, int level = 2, std::string id = {});
  void paragraph(std::string text);
  void bullets(std::vector<std::string> items);
  void table(Table table);
};

std::string render_text(const Document& document);
std::string render_markdown(const Document& document);

}  // namespace parity::analyzer
