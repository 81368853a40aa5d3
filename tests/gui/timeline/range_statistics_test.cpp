// Statistics of a selected range against a naive float64 computation, the
// model checked by QAbstractItemModelTester, and Ctrl+F search forward and
// backward across rows.
#include "parity/gui/timeline/range_statistics.hpp"

#include <QAbstractItemModelTester>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <map>

#include "parity/gui/timeline/event_search.hpp"
#include "parity/gui/timeline/timeline_loader.hpp"
#include "qt_test_main.hpp"
#include "timeline_trace.hpp"

using namespace parity::gui;

class RangeStatisticsTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    const auto path = std::filesystem::path(dir_.path().toStdString()) / "known.db";
    timeline_trace::write(path);
    data_ = load_timeline(path);
    traces_ = {{&data_, 0, "known"}};
  }

  void statistics_match_naive_computation() {
    // From the middle of step 0's second op to the middle of step 1's first op.
    const TimeWindow range{125'000, 1'025'000};
    const auto stats = range_statistics(traces_, range);
    // Naive: clip every event of every row, in float64, grouped by name.
    std::map<std::string, std::vector<double>> naive;
    for (const Lane& lane : data_.lanes)
      for (const EventRow& row : lane.rows)
        for (std::size_t i = 0; i < row.size(); ++i) {
          const double a = std::max<double>(row.starts[i], range.start_ns);
          const double b = std::min<double>(row.ends[i], range.end_ns);
          if (b > a || (b == a && row.starts[i] >= range.start_ns && row.starts[i] < range.end_ns))
            naive[data_.name(row.names[i])].push_back(b - a);
        }
    QCOMPARE(stats.size(), naive.size());
    for (const RangeStatistic& stat : stats) {
      auto& values = naive.at(stat.name);
      std::sort(values.begin(), values.end());
      double total = 0;
      for (double v : values) total += v;
      QCOMPARE(stat.count, static_cast<std::int64_t>(values.size()));
      QCOMPARE(stat.total_ns, total);
      QCOMPARE(stat.share, total / range.length_ns());
      QCOMPARE(stat.mean_ns, total / values.size());
    }
    // conv: op 1 clipped to 25 µs, ops 2 and 3 whole, step 1's op 0 clipped to 25 µs.
    const auto conv = std::find_if(stats.begin(), stats.end(), [](const auto& s) { return s.name == "conv"; });
    QCOMPARE(conv->count, 4);
    QCOMPARE(conv->total_ns, 150'000.0);
    QCOMPARE(conv->p50_ns, 37'500.0);
    QCOMPARE(conv->kind, std::string("range"));
    // Largest total first: the step (900 µs of two steps).
    QCOMPARE(stats.front().name, std::string("step"));
    QCOMPARE(stats.front().total_ns, 900'000.0);
  }

  void model_passes_the_tester_and_sorts_numerically() {
    RangeStatisticsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.set_statistics(range_statistics(traces_, data_.extent), data_.extent);
    QVERIFY(model.rowCount() > 5);
    QCOMPARE(model.columnCount(), static_cast<int>(RangeStatisticsModel::kColumns));
    const QModelIndex total = model.index(0, RangeStatisticsModel::kTotal);
    QCOMPARE(model.data(total).toString(), QStringLiteral("3 ms"));
    QCOMPARE(model.data(total, RangeStatisticsModel::kSortRole).toDouble(), 3e6);
    model.set_statistics({}, {});
    QCOMPARE(model.rowCount(), 0);
  }

  void search_steps_through_matches() {
    // The kernels, 100 µs apart from 30 µs on, in the GPU lane.
    auto hit = find_event(traces_, QStringLiteral("CONV_K"), -1, true);
    QVERIFY(hit.has_value());
    QCOMPARE(hit->span.start_ns, 30'000);
    hit = find_event(traces_, QStringLiteral("conv_k"), hit->span.start_ns, true);
    QCOMPARE(hit->span.start_ns, 130'000);
    hit = find_event(traces_, QStringLiteral("conv_k"), hit->span.start_ns, false);
    QCOMPARE(hit->span.start_ns, 30'000);
    QVERIFY(!find_event(traces_, QStringLiteral("conv_k"), 30'000, false).has_value());
    QVERIFY(!find_event(traces_, QStringLiteral("no such name"), 0, true).has_value());
    // Names shared by rows: the earliest start wins ("conv" op at 0, before its kernel).
    hit = find_event(traces_, QStringLiteral("conv"), -1, true);
    QCOMPARE(hit->span.start_ns, 0);
    QCOMPARE(hit->event.row, 2);
  }

 private:
  QTemporaryDir dir_;
  TimelineData data_;
  std::vector<TraceView> traces_;
};

PARITY_QT_TEST(RangeStatisticsTest, kCore)
#include "range_statistics_test.moc"
