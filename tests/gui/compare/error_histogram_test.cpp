// ErrorHistogram: errors binned by decade, powers of ten in their own decade,
// identical and non-finite errors in their own bars, too wide a spread clamped
// into the lowest decade.
#include "parity/gui/compare/error_histogram.hpp"

#include <QTest>
#include <cmath>
#include <limits>
#include <vector>

#include "fixtures.hpp"
#include "qt_test_main.hpp"

using parity::gui::error_histogram;
using parity::gui::ErrorHistogram;

class ErrorHistogramTest : public QObject {
  Q_OBJECT

 private slots:
  void bins_by_decade() {
    const std::vector<double> errors{
        0, 0, 1e-3, 2e-3, 9.99e-3, 0.5, std::numeric_limits<double>::infinity(), std::nan("")};
    const ErrorHistogram h = error_histogram(errors);
    QCOMPARE(h.exact, 2u);
    QCOMPARE(h.first_decade, -3);
    QCOMPARE(h.decades, (std::vector<std::size_t>{3, 0, 1}));
    QCOMPARE(h.non_finite, 2u);
    QVERIFY(!h.clamped);
    QCOMPARE(h.total(), errors.size());
    QCOMPARE(h.bars(), 5);
    const QStringList labels{"0", "1e-03", "1e-02", "1e-01", "nan/inf"};
    for (int bar = 0; bar < h.bars(); ++bar) QCOMPARE(h.label(bar), labels[bar]);
    QCOMPARE(h.count(1), 3u);
    QCOMPARE(h.bar_of(0.5), 3);
    QCOMPARE(h.bar_of(std::nan("")), 4);
  }

  void powers_of_ten_start_their_decade() {
    const std::vector<double> errors{1e-7, 1e-3, 1, 100};
    const ErrorHistogram h = error_histogram(errors);
    QCOMPARE(h.first_decade, -7);
    QCOMPARE(h.decades.size(), 10u);
    QCOMPARE(h.bar_of(1e-3), 1 + 4);
    QCOMPARE(h.label(h.bar_of(1e-3)), QStringLiteral("1e-03"));
    QCOMPARE(h.label(h.bar_of(100)), QStringLiteral("1e+02"));
    QCOMPARE(h.count(h.bar_of(1)), 1u);
  }

  void wide_spread_is_clamped_into_the_lowest_decade() {
    const std::vector<double> errors{1e-30, 1e-20, 1};
    const ErrorHistogram h = error_histogram(errors);
    QVERIFY(h.clamped);
    QCOMPARE(h.decades.size(), static_cast<std::size_t>(ErrorHistogram::kMaxDecades));
    QCOMPARE(h.first_decade, 1 - ErrorHistogram::kMaxDecades);
    QCOMPARE(h.count(1), 2u);
    QCOMPARE(h.label(1), QStringLiteral("<1e-16"));
    QCOMPARE(h.count(h.bar_of(1)), 1u);
  }

  void no_differences_leave_exact_and_non_finite_bars() {
    QCOMPARE(error_histogram({}).bars(), 2);
    QCOMPARE(error_histogram({}).total(), 0u);
    const std::vector<double> zeros{0, 0, 0};
    const ErrorHistogram h = error_histogram(zeros);
    QCOMPARE(h.bars(), 2);
    QCOMPARE(h.exact, 3u);
    QCOMPARE(h.label(1), QStringLiteral("nan/inf"));
  }
};

PARITY_QT_TEST(ErrorHistogramTest, kCore)
#include "error_histogram_test.moc"
