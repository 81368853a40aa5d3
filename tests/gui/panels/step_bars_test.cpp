// step_bars: the bars of the step chart carry the analyzer's breakdown of
// each step in ms, mark warm-up, and stay at most kMaxStepBars however many
// steps the run has: steps around the window one bar each, or groups of
// neighbouring steps (their mean) that cover the window; a second run's
// bars align to the first's by step number.
#include "parity/gui/panels/step_bars.hpp"

#include <QTemporaryDir>
#include <QTest>

#include "qt_test_main.hpp"
#include "report_fixture.hpp"
#include "small_trace.hpp"

using parity::analyzer::StepAnalysis;
using parity::analyzer::StepPart;
using parity::gui::aligned_step_bars;
using parity::gui::kMaxStepBars;
using parity::gui::step_bars;
using parity::gui::TimeWindow;

namespace {

constexpr std::int64_t kPeriod = 10'000'000;

// A run of `count` steps, 10 ms apart, each 9 ms long: forward takes
// (step % 7) ms and other the rest, so a group's mean is known.
StepAnalysis long_run(std::size_t count) {
  StepAnalysis analysis;
  analysis.warmup_steps = 2;
  for (std::size_t i = 0; i < count; ++i) {
    parity::analyzer::StepBreakdown step;
    step.step = static_cast<std::int64_t>(i);
    step.start_ns = static_cast<std::int64_t>(i) * kPeriod;
    step.dur_ns = 9'000'000;
    step.parts[static_cast<std::size_t>(StepPart::kForward)] = (step.step % 7) * 1'000'000;
    step.parts[static_cast<std::size_t>(StepPart::kOther)] =
        step.dur_ns - (step.step % 7) * 1'000'000;
    analysis.steps.push_back(step);
  }
  return analysis;
}

double forward_ms(const parity::gui::StepBar& bar) {
  return bar.part_ms[static_cast<std::size_t>(StepPart::kForward)];
}

}  // namespace

class StepBarsTest : public QObject {
  Q_OBJECT

 private slots:
  void few_steps_are_one_bar_each_with_the_analyzers_parts() {
    QTemporaryDir dir;
    const auto report = panels_test::small_trace_report(dir.path().toStdString());
    const StepAnalysis& steps = report->focus_rank().steps;
    const auto bars = step_bars(steps, {0, 1});  // a window before the run: the whole run anyway
    QCOMPARE(bars.size(), std::size_t{small_trace::kSteps});
    for (std::size_t i = 0; i < bars.size(); ++i) {
      QCOMPARE(bars[i].first, i);
      QCOMPARE(bars[i].last, i);
      QCOMPARE(bars[i].warmup, i < steps.warmup_steps);
      for (std::size_t p = 0; p < parity::analyzer::kStepParts; ++p)
        QCOMPARE(bars[i].part_ms[p], static_cast<double>(steps.steps[i].parts[p]) / 1e6);
    }
    // A steady step of the small trace, by hand: 1 + 3 + 4 + 0.5 + 1 + 0.5 ms.
    const std::array<double, 6> steady = {1, 3, 4, 0.5, 1, 0.5};
    QCOMPARE(bars[2].part_ms, steady);
    QVERIFY(bars[0].warmup);
    const std::int64_t start = small_trace::kFirstStepStart;
    QCOMPARE(bars[0].range, (TimeWindow{start, start + 11 * small_trace::kMs}));
  }

  void a_long_run_is_grouped_into_at_most_max_bars() {
    const StepAnalysis run = long_run(10'000);
    const auto bars = step_bars(run, {0, 10'000 * kPeriod});
    QVERIFY(bars.size() <= kMaxStepBars);
    QVERIFY(bars.size() > kMaxStepBars / 2);
    const std::size_t per_bar = bars.front().steps();
    QVERIFY(per_bar > 1);
    QCOMPARE(bars.front().first, std::size_t{0});
    QCOMPARE(bars.back().last, std::size_t{9'999});
    for (std::size_t i = 1; i < bars.size(); ++i) QCOMPARE(bars[i].first, bars[i - 1].last + 1);
    QVERIFY(bars.front().warmup);
    QVERIFY(!bars[1].warmup);
    // Each bar is its steps' mean.
    const auto& bar = bars[5];
    double forward = 0;
    for (std::size_t s = bar.first; s <= bar.last; ++s) forward += static_cast<double>(s % 7);
    QCOMPARE(forward_ms(bar), forward / static_cast<double>(bar.steps()));
    QCOMPARE(bar.range, (TimeWindow{static_cast<std::int64_t>(bar.first) * kPeriod,
                                    static_cast<std::int64_t>(bar.last) * kPeriod + 9'000'000}));
  }

  void groups_do_not_shift_when_the_window_pans() {
    const StepAnalysis run = long_run(10'000);
    const auto bars = step_bars(run, {1234 * kPeriod, 6234 * kPeriod});
    QVERIFY(bars.size() <= kMaxStepBars);
    const std::size_t per_bar = bars.front().steps();
    for (const auto& bar : bars) QCOMPARE(bar.first % per_bar, std::size_t{0});
    QVERIFY(bars.front().first <= 1234 && bars.back().last >= 6233);
  }

  void a_zoomed_window_draws_its_steps_and_neighbours() {
    const StepAnalysis run = long_run(10'000);
    // Steps 5000-5099 overlap the window.
    const auto bars = step_bars(run, {5000 * kPeriod + 1, 5100 * kPeriod - 1});
    QCOMPARE(bars.size(), kMaxStepBars);
    for (const auto& bar : bars) QCOMPARE(bar.steps(), std::size_t{1});
    QCOMPARE(bars.front().first, std::size_t{5050 - kMaxStepBars / 2});
    QCOMPARE(forward_ms(bars[3]), static_cast<double>(bars[3].first % 7));

    // Past either end of the run: the first or the last steps.
    QCOMPARE(step_bars(run, {-5 * kPeriod, -kPeriod}).front().first, std::size_t{0});
    QCOMPARE(step_bars(run, {20'000 * kPeriod, 30'000 * kPeriod}).back().last, std::size_t{9'999});
  }

  void a_second_runs_bars_hold_the_same_step_numbers() {
    // Run B numbers its steps from 100 on and has 200 of them; A has 400, 0-399.
    const StepAnalysis a = long_run(400);
    StepAnalysis b = long_run(200);
    for (auto& step : b.steps) step.step += 100;
    // One bar per step, around steps 50-59 of A: A's steps 0-299.
    const auto bars = step_bars(a, {50 * kPeriod, 60 * kPeriod});
    const auto aligned = aligned_step_bars(b, a, bars);
    QCOMPARE(aligned.size(), bars.size());
    for (std::size_t i = 0; i < bars.size(); ++i) {
      const std::int64_t number = a.steps[bars[i].first].step;
      QCOMPARE(aligned[i].has_value(), number >= 100 && number < 300);
      if (!aligned[i]) continue;
      QCOMPARE(b.steps[aligned[i]->first].step, number);
      // B's step n is B's (n - 100)th, whose forward takes ((n - 100) % 7) ms.
      QCOMPARE(forward_ms(*aligned[i]), static_cast<double>((number - 100) % 7));
    }
    // Groups: B's bar is the mean of B's steps among the group's numbers.
    const auto groups = step_bars(a, {0, 400 * kPeriod}, 10);
    const auto grouped = aligned_step_bars(b, a, groups);
    for (std::size_t i = 0; i < groups.size(); ++i) {
      const std::int64_t first = a.steps[groups[i].first].step, last = a.steps[groups[i].last].step;
      if (last < 100 || first >= 300) {
        QVERIFY(!grouped[i]);
        continue;
      }
      QVERIFY(grouped[i]);
      QCOMPARE(b.steps[grouped[i]->first].step, std::max<std::int64_t>(first, 100));
      QCOMPARE(b.steps[grouped[i]->last].step, std::min<std::int64_t>(last, 299));
    }
  }
};

PARITY_QT_TEST(StepBarsTest, kCore)
#include "step_bars_test.moc"
