// The md format: the Report's Document as Markdown (a CI step summary).
#include "renderers.hpp"

namespace parity::analyzer {

void render_markdown_format(const Report& report, std::ostream& out) {
  out << render_markdown(report.document);
}

}  // namespace parity::analyzer
