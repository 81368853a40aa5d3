// Which rank's analysis a panel details: the rank asked for, or the report's
// focus rank (the one with the most work per step, which every rank waits
// for) when none is asked for or the report holds no such rank.
#pragma once

#include <cstdint>
#include <optional>

#include "parity/analyzer/profile/profile_report.hpp"

namespace parity::gui {

const analyzer::RankProfile& report_rank(const analyzer::ProfileReport& report,
                                         std::optional<std::int64_t> rank);

}  // namespace parity::gui
