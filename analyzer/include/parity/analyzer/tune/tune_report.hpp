// The reports of `parity tune-allreduce`: text for a terminal, JSON for CI
// and scripts (the fields are listed in docs/tune-allreduce.md).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "parity/analyzer/tune/tune_analysis.hpp"

namespace parity::analyzer {

void write_tune_text(const TuneResult& result, std::ostream& out);
nlohmann::json tune_json(const TuneResult& result);

}  // namespace parity::analyzer
