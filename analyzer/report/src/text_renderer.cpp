// The text format: the Report's Document laid out for a terminal.
#include "renderers.hpp"

namespace parity::analyzer {

void render_text_format(const Report& report, std::ostream& out) {
  out << render_text(report.document);
}

}  // namespace parity::analyzer
