// A dump record (docs/formats/dump.md) as the JSON reports of
// `parity compare` and `parity nan-scan` write it: index, step, phase, name,
// module, op, role, dtype and shape, in that order.
#pragma once

#include <nlohmann/json.hpp>

#include "parity/importers/dump/dump_manifest.hpp"

namespace parity::analyzer {

nlohmann::ordered_json record_json(const importers::DumpRecord& record);

}  // namespace parity::analyzer
