#include "parity/analyzer/report/document.hpp"

#include <algorithm>
#include <sstream>

#include "parity/analyzer/report/name_elision.hpp"
#include "table_layout.hpp"

namespace parity::analyzer {

bool is_numeric(const Table& table, std::size_t column) {
  return column < table.numeric.size() ? table.numeric[column] : column > 0;
}

std::vector<std::vector<std::string>> shortened_rows(const Table& table) {
  std::vector<std::vector<std::string>> rows = table.rows;
  for (std::size_t c = 0; c < table.names.size(); ++c) {
    if (!table.names[c]) continue;
    std::vector<std::string> column;
    for (const auto& row : rows) column.push_back(c < row.size() ? row[c] : "");
    const std::vector<std::string> shown = shorten_names(column);
    for (std::size_t r = 0; r < rows.size(); ++r)
      if (c < rows[r].size()) rows[r][c] = shown[r];
  }
  return rows;
}

namespace {

// Display width of UTF-8 text: continuation bytes take no column.
std::size_t width(const std::string& text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

void text_table(const Table& table, std::ostream& out) {
  const std::vector<std::vector<std::string>> rows = shortened_rows(table);
  std::vector<std::size_t> widths(table.header.size(), 0);
  const auto measure = [&](const std::vector<std::string>& row) {
    for (std::size_t c = 0; c < row.size() && c < widths.size(); ++c)
      widths[c] = std::max(widths[c], width(row[c]));
  };
  measure(table.header);
  for (const auto& row : rows) measure(row);
  const auto line = [&](const std::vector<std::string>& row) {
    std::string text = " ";
    for (std::size_t c = 0; c < widths.size(); ++c) {
      const std::string cell = c < row.size() ? row[c] : "";
      const std::string pad(widths[c] - width(cell), ' ');
      text += ' ' + (is_numeric(table, c) ? pad + cell : cell + pad);
      if (c + 1 < widths.size()) text += ' ';
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out << text << '\n';
  };
  line(table.header);
  std::size_t total = 0;
  for (const std::size_t w : widths) total += w + 2;
  out << "  " << std::string(total > 2 ? total - 2 : 0, '-') << '\n';
  for (const auto& row : rows) line(row);
}

std::string markdown_cell(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

void markdown_table(const Table& table, std::ostream& out) {
  const auto line = [&](const std::vector<std::string>& row) {
    out << '|';
    for (std::size_t c = 0; c < table.header.size(); ++c)
      out << ' ' << markdown_cell(c < row.size() ? row[c] : "") << " |";
    out << '\n';
  };
  line(table.header);
  out << '|';
  for (std::size_t c = 0; c < table.header.size(); ++c)
    out << (is_numeric(table, c) ? "---:|" : "---|");
  out << '\n';
  for (const auto& row : table.rows) line(row);
}

}  // namespace

void Document::heading(std::string text, int level, std::string id) {
  Block block;
  block.kind = Block::Kind::kHeading;
  block.level = level;
  block.text = std::move(text);
  block.id = std::move(id);
  blocks.push_back(std::move(block));
}

void Document::paragraph(std::string text) {
  Block block;
  block.text = std::move(text);
  blocks.push_back(std::move(block));
}

void Document::verdict(std::string text, bool passed) {
  Block block;
  block.kind = Block::Kind::kVerdict;
  block.text = std::move(text);
  block.passed = passed;
  blocks.push_back(std::move(block));
}

void Document::fields(std::vector<std::vector<std::string>> name_value_rows) {
  Block block;
  block.kind = Block::Kind::kFields;
  block.table.rows = std::move(name_value_rows);
  blocks.push_back(std::move(block));
}

void Document::bullets(std::vector<std::string> items) {
  Block block;
  block.kind = Block::Kind::kBullets;
  block.items = std::move(items);
  blocks.push_back(std::move(block));
}

void Document::table(Table table) {
  Block block;
  block.kind = Block::Kind::kTable;
  block.table = std::move(table);
  blocks.push_back(std::move(block));
}

std::string render_text(const Document& document) {
  std::ostringstream out;
  bool first = true;
  for (const Block& block : document.blocks) {
    switch (block.kind) {
      case Block::Kind::kHeading:
        if (!first) out << '\n';
        out << block.text << '\n';
        if (block.level == 1) out << std::string(width(block.text), '=') << '\n';
        break;
      case Block::Kind::kParagraph:
      case Block::Kind::kVerdict:
        out << "  " << block.text << '\n';
        break;
      case Block::Kind::kFields:
        for (const auto& row : block.table.rows) out << "  " << row[0] << ": " << row[1] << '\n';
        break;
      case Block::Kind::kBullets:
        for (const std::string& item : block.items) out << "  - " << item << '\n';
        break;
      case Block::Kind::kTable:
        text_table(block.table, out);
        break;
    }
    first = false;
  }
  return out.str();
}

std::string render_markdown(const Document& document) {
  std::ostringstream out;
  for (const Block& block : document.blocks) {
    switch (block.kind) {
      case Block::Kind::kHeading:
        out << std::string(static_cast<std::size_t>(block.level), '#') << ' ' << block.text
            << "\n\n";
        break;
      case Block::Kind::kParagraph:
      case Block::Kind::kVerdict:
        out << block.text << "\n\n";
        break;
      case Block::Kind::kFields:
        out << "| | |\n|---|---|\n";
        for (const auto& row : block.table.rows)
          out << "| " << markdown_cell(row[0]) << " | " << markdown_cell(row[1]) << " |\n";
        out << '\n';
        break;
      case Block::Kind::kBullets:
        for (const std::string& item : block.items) out << "- " << item << '\n';
        out << '\n';
        break;
      case Block::Kind::kTable:
        markdown_table(block.table, out);
        out << '\n';
        break;
    }
  }
  return out.str();
}

}  // namespace parity::analyzer
