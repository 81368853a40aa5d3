// The csv format: the Report's records, one line each, under their `#`
// comment lines and a header; fields quoted where they must be.
#include "renderers.hpp"

namespace parity::analyzer {
namespace {

void write_line(const std::vector<std::string>& fields, std::ostream& out) {
  for (std::size_t k = 0; k < fields.size(); ++k) out << (k ? "," : "") << csv_field(fields[k]);
  out << '\n';
}

}  // namespace

void render_csv_format(const Report& report, std::ostream& out) {
  if (!report.records) return;
  for (const std::string& comment : report.records->comments) out << "# " << comment << '\n';
  write_line(report.records->header, out);
  for (const auto& row : report.records->rows) write_line(row, out);
}

}  // namespace parity::analyzer
