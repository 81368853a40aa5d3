#include "parity/gui/timeline/row_packer.hpp"

#include <algorithm>

namespace parity::gui {

void RowPacker::add(std::int64_t start, std::int64_t end, std::uint32_t name,
                    std::uint32_t correlation) {
  if (end < start) end = start;
  std::size_t r = 0;
  while (r < rows_.size() && !rows_[r].ends.empty() && rows_[r].ends.back() > start) ++r;
  if (r == rows_.size()) {
    EventRow row;
    row.source = source_;
    row.depth = depth_;
    rows_.push_back(std::move(row));
  }
  EventRow& row = rows_[r];
  row.starts.push_back(start);
  row.ends.push_back(end);
  row.names.push_back(name);
  if (correlated_) row.correlations.push_back(correlation);
}

std::vector<EventRow> RowPacker::take() {
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    EventRow& row = rows_[r];
    row.title = r == 0 ? title_ : title_ + " (overlap " + std::to_string(r) + ")";
    row.starts.shrink_to_fit();
    row.ends.shrink_to_fit();
    row.names.shrink_to_fit();
    row.correlations.shrink_to_fit();
    row.correlations_sorted = std::is_sorted(row.correlations.begin(), row.correlations.end());
  }
  return std::move(rows_);
}

}  // namespace parity::gui
