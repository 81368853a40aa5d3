// The json format: the Report's data tree, indented by two spaces.
#include "renderers.hpp"

namespace parity::analyzer {

void render_json_format(const Report& report, std::ostream& out) {
  out << report.data.dump(2) << '\n';
}

}  // namespace parity::analyzer
