#include "parity/analyzer/compare/record_json.hpp"

namespace parity::analyzer {

nlohmann::ordered_json record_json(const importers::DumpRecord& r) {
  return {
      {"index", r.index},   {"step", r.step}, {"phase", r.phase}, {"name", r.name},
      {"module", r.module}, {"op", r.op},     {"role", r.role},   {"dtype", dtype_name(r.dtype)},
      {"shape", r.shape}};
}

}  // namespace parity::analyzer
