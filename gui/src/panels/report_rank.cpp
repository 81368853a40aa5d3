#include "parity/gui/panels/report_rank.hpp"

namespace parity::gui {

const analyzer::RankProfile& report_rank(const analyzer::ProfileReport& report,
                                         std::optional<std::int64_t> rank) {
  if (rank)
    for (const analyzer::RankProfile& profile : report.ranks)
      if (profile.rank == *rank) return profile;
  return report.focus_rank();
}

}  // namespace parity::gui
