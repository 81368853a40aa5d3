// Statistics of a selected time range, per name: what a drag-selection on
// the timeline shows. Every event that overlaps the range counts, with its
// duration clipped to the range, so totals and shares are time spent inside
// the selection.
#pragma once

#include <QAbstractTableModel>
#include <cstdint>
#include <string>
#include <vector>

#include "parity/gui/background_task.hpp"
#include "parity/gui/timeline/timeline_layout.hpp"

namespace parity::gui {

struct RangeStatistic {
  int trace = 0;
  std::string name;
  std::string kind;  // "range", "kernel", "CUDA API", "collective", "instant"
  std::int64_t count = 0;
  double total_ns = 0, mean_ns = 0, p50_ns = 0, p95_ns = 0;
  double share = 0;  // total / range length
};

// By total time, largest first. `control` (may be null) is checked now and then.
std::vector<RangeStatistic> range_statistics(const std::vector<TraceView>& traces, TimeWindow range,
                                             TaskControl* control = nullptr);

class RangeStatisticsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kName, kKind, kCount, kTotal, kMean, kP50, kP95, kShare, kTrace, kColumns };
  // The raw number of a cell, for sorting (Qt::DisplayRole holds text with units).
  static constexpr int kSortRole = Qt::UserRole + 1;

  explicit RangeStatisticsModel(QObject* parent = nullptr);
  void set_statistics(std::vector<RangeStatistic> statistics, TimeWindow range);
  const std::vector<RangeStatistic>& statistics() const { return statistics_; }
  TimeWindow range() const { return range_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<RangeStatistic> statistics_;
  TimeWindow range_;
};

}  // namespace parity::gui
