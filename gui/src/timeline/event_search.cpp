#include "parity/gui/timeline/event_search.hpp"

namespace parity::gui {

std::optional<SearchHit> find_event(const std::vector<TraceView>& traces, const QString& text,
                                    std::int64_t from_ns, bool forward) {
  if (text.isEmpty()) return std::nullopt;
  const QByteArray needle = text.toUtf8().toLower();
  std::optional<SearchHit> best;
  for (std::size_t t = 0; t < traces.size(); ++t) {
    const TraceView& view = traces[t];
    if (!view.data) continue;
    std::vector<char> match(view.data->strings.size());
    bool any = false;
    for (std::size_t i = 0; i < match.size(); ++i)
      any |= (match[i] = QByteArray::fromStdString(view.data->strings[i]).toLower().contains(needle)) != 0;
    if (!any) continue;
    const std::int64_t from = from_ns - view.offset_ns;
    for (std::size_t l = 0; l < view.data->lanes.size(); ++l) {
      const auto& rows = view.data->lanes[l].rows;
      for (std::size_t r = 0; r < rows.size(); ++r) {
        const EventRow& row = rows[r];
        auto matches = [&](std::size_t i) { return row.names[i] < match.size() && match[row.names[i]]; };
        std::optional<std::size_t> found;
        if (forward) {
          for (std::size_t i = row.first_starting_from(from + 1); i < row.size(); ++i)
            if (matches(i)) {
              found = i;
              break;
            }
        } else {
          for (std::size_t i = row.first_starting_from(from); i-- > 0;)
            if (matches(i)) {
              found = i;
              break;
            }
        }
        if (!found) continue;
        const TimeWindow span{row.starts[*found] + view.offset_ns, row.ends[*found] + view.offset_ns};
        const bool better = !best || (forward ? span.start_ns < best->span.start_ns
                                              : span.start_ns > best->span.start_ns);
        if (better)
          best = SearchHit{{static_cast<int>(t), static_cast<int>(l), static_cast<int>(r),
                            static_cast<std::int64_t>(*found)},
                           span};
      }
    }
  }
  return best;
}

}  // namespace parity::gui
