// RowPacker: places events that arrive sorted by start into the rows of one
// group (a thread's ranges at one depth, its API calls, a stream's kernels)
// so that every row's events stay disjoint, which the painter's binary
// searches rely on. An event that overlaps the last one of a row goes to the
// next row (made when needed): overlapping events are shown, never hidden.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "parity/gui/timeline/timeline_data.hpp"

namespace parity::gui {

class RowPacker {
 public:
  RowPacker(std::string title, EventSource source, std::uint32_t depth, bool correlated)
      : title_(std::move(title)), source_(source), depth_(depth), correlated_(correlated) {}

  void add(std::int64_t start, std::int64_t end, std::uint32_t name,
           std::uint32_t correlation = 0);
  void set_title(std::string title) { title_ = std::move(title); }
  bool empty() const { return rows_.empty(); }
  // The rows, their arrays trimmed to size.
  std::vector<EventRow> take();

 private:
  std::string title_;
  EventSource source_;
  std::uint32_t depth_;
  bool correlated_;
  std::vector<EventRow> rows_;
};

}  // namespace parity::gui
