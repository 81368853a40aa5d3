// The report of `parity tune-allreduce` (report.hpp): text, md and html for
// people, json for CI and scripts (the fields are listed in
// docs/tune-allreduce.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "parity/analyzer/report/report.hpp"
#include "parity/analyzer/tune/tune_analysis.hpp"

namespace parity::analyzer {

const std::vector<std::string>& tune_report_formats();  // text, md, html, json
Report tune_report(const TuneResult& result);
nlohmann::json tune_json(const TuneResult& result);

}  // namespace parity::analyzer
