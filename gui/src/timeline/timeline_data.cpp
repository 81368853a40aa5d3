#include "parity/gui/timeline/timeline_data.hpp"

#include <algorithm>

namespace parity::gui {

namespace {
template <typename T>
std::size_t bytes_of(const std::vector<T>& values) {
  return values.capacity() * sizeof(T);
}
}  // namespace

std::size_t EventRow::first_ending_from(std::int64_t t) const {
  // Events in a row are disjoint and sorted, so their ends are sorted too.
  return static_cast<std::size_t>(std::lower_bound(ends.begin(), ends.end(), t) - ends.begin());
}

std::size_t EventRow::first_starting_from(std::int64_t t) const {
  return static_cast<std::size_t>(std::lower_bound(starts.begin(), starts.end(), t) -
                                  starts.begin());
}

std::size_t EventRow::memory_bytes() const {
  return bytes_of(starts) + bytes_of(ends) + bytes_of(names) + bytes_of(correlations);
}

void CounterRow::finish() {
  if (values.empty()) return;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  min = *lo;
  max = *hi;
  const std::size_t blocks = (values.size() + kBlock - 1) / kBlock;
  block_min.resize(blocks);
  block_max.resize(blocks);
  for (std::size_t b = 0; b < blocks; ++b) {
    const auto first = values.begin() + static_cast<std::ptrdiff_t>(b * kBlock);
    const auto last = values.begin() + static_cast<std::ptrdiff_t>(
                                           std::min(values.size(), (b + 1) * kBlock));
    const auto [bl, bh] = std::minmax_element(first, last);
    block_min[b] = *bl;
    block_max[b] = *bh;
  }
}

std::pair<double, double> CounterRow::min_max(std::size_t first, std::size_t last) const {
  double lo = values[first], hi = values[first];
  auto take = [&](double a, double b) {
    lo = std::min(lo, a);
    hi = std::max(hi, b);
  };
  std::size_t i = first;
  while (i < last && i % kBlock != 0) take(values[i], values[i]), ++i;
  for (; i + kBlock <= last; i += kBlock) take(block_min[i / kBlock], block_max[i / kBlock]);
  for (; i < last; ++i) take(values[i], values[i]);
  return {lo, hi};
}

std::size_t CounterRow::memory_bytes() const {
  return bytes_of(times) + bytes_of(values) + bytes_of(block_min) + bytes_of(block_max);
}

const std::string& TimelineData::name(std::uint32_t id) const {
  static const std::string unknown = "?";
  return id < strings.size() ? strings[id] : unknown;
}

std::size_t TimelineData::memory_bytes() const {
  std::size_t total = 0;
  for (const std::string& text : strings) total += sizeof(std::string) + text.capacity();
  for (const Lane& lane : lanes) {
    for (const EventRow& row : lane.rows) total += row.memory_bytes();
    for (const CounterRow& row : lane.counters) total += row.memory_bytes();
  }
  return total;
}

const StepSpan* TimelineData::step(std::int64_t number) const {
  const auto it = std::lower_bound(steps.begin(), steps.end(), number,
                                   [](const StepSpan& s, std::int64_t n) { return s.step < n; });
  return it != steps.end() && it->step == number ? &*it : nullptr;
}

std::optional<EventRef> TimelineData::correlated(const EventRef& event) const {
  if (event.lane < 0 || static_cast<std::size_t>(event.lane) >= lanes.size()) return std::nullopt;
  const Lane& lane = lanes[static_cast<std::size_t>(event.lane)];
  if (event.row < 0 || static_cast<std::size_t>(event.row) >= lane.rows.size()) return std::nullopt;
  const EventRow& row = lane.rows[static_cast<std::size_t>(event.row)];
  const auto index = static_cast<std::size_t>(event.index);
  if (row.correlations.empty() || index >= row.correlations.size()) return std::nullopt;
  const std::uint32_t id = row.correlations[index];
  const EventSource wanted = row.source == EventSource::kApiCall ? EventSource::kGpuActivity
                                                                 : EventSource::kApiCall;
  for (std::size_t l = 0; l < lanes.size(); ++l) {
    for (std::size_t r = 0; r < lanes[l].rows.size(); ++r) {
      const EventRow& other = lanes[l].rows[r];
      if (other.source != wanted || other.correlations.empty()) continue;
      const auto it =
          other.correlations_sorted
              ? std::lower_bound(other.correlations.begin(), other.correlations.end(), id)
              : std::find(other.correlations.begin(), other.correlations.end(), id);
      if (it != other.correlations.end() && *it == id)
        return EventRef{event.trace, static_cast<int>(l), static_cast<int>(r),
                        it - other.correlations.begin()};
    }
  }
  return std::nullopt;
}

}  // namespace parity::gui
