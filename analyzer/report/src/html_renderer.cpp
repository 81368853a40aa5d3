// The html format: the Report's Document as one self-contained page, with
// the report's charts and styled blocks inserted.
#include "renderers.hpp"

namespace parity::analyzer {

void render_html_format(const Report& report, std::ostream& out) {
  out << render_html(report.document, report.html);
}

}  // namespace parity::analyzer
