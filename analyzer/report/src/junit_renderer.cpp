// The junit format: the Report's checks as one JUnit XML test suite.
#include "renderers.hpp"

namespace parity::analyzer {

void render_junit_format(const Report& report, std::ostream& out) {
  if (report.checks) write_junit(*report.checks, out);
}

}  // namespace parity::analyzer
