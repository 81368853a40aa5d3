// Aligning two loss curves and finding where they part: against a naive
// reference over random curves, with a band of repeated runs, and the
// first-loss check.
#include "parity/analyzer/loss/loss_compare.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "parity/analyzer/loss/loss_report.hpp"

using namespace parity::analyzer;

namespace {

LossCurve curve(std::vector<std::pair<std::int64_t, double>> points) {
  LossCurve out{"test", "test", {}, {}};
  for (const auto& [step, loss] : points) out.points.push_back({step, loss, 0});
  return out;
}

// The first common step (by number) whose B is off A by more than
// atol + rtol * |A|, found by brute force.
std::optional<std::int64_t> naive_first_parting(const LossCurve& a, const LossCurve& b, double atol,
                                                double rtol) {
  for (const LossPoint& pa : a.points)
    for (const LossPoint& pb : b.points)
      if (pa.step == pb.step && std::abs(pb.loss - pa.loss) > atol + rtol * std::abs(pa.loss))
        return pa.step;
  return std::nullopt;
}

}  // namespace

TEST_CASE("the first parting step agrees with a naive search on random curves", "[unit]") {
  std::mt19937 random(7);
  std::uniform_real_distribution<double> loss(0.5, 3), noise(-1e-3, 1e-3);
  std::bernoulli_distribution kept(0.9), drifts(0.05);
  for (int trial = 0; trial < 200; ++trial) {
    LossCurve a = curve({}), b = curve({});
    double drift = 0;
    for (std::int64_t step = 1; step <= 60; ++step) {
      const double value = loss(random);
      if (drifts(random)) drift += 0.01;
      if (kept(random)) a.points.push_back({step, value, 0});
      if (kept(random)) b.points.push_back({step, value + drift + noise(random) * 1e-3, 0});
    }
    const LossComparison c = compare_losses(a, b, {}, {1e-6, 1e-5});
    const auto expected = naive_first_parting(a, b, 1e-6, 1e-5);
    INFO("trial " << trial);
    REQUIRE(c.first_parted.has_value() == expected.has_value());
    if (expected) CHECK(c.steps[*c.first_parted].step == *expected);
    CHECK(c.steps.size() + c.only_a.size() == a.points.size());
    CHECK(c.steps.size() + c.only_b.size() == b.points.size());
  }
}

TEST_CASE("a band of repeated runs allows what the runs span, widened by the tolerances",
          "[unit]") {
  const LossCurve a = curve({{1, 2.0}, {2, 1.5}, {3, 1.2}});
  const LossCurve repeat = curve({{1, 2.0}, {2, 1.6}, {3, 1.1}});
  const LossCurve b = curve({{1, 2.0}, {2, 1.58}, {3, 1.3}});
  SECTION("without the band, step 2 parts") {
    const LossComparison c = compare_losses(a, b, {}, {1e-3, 0});
    REQUIRE(c.first_parted);
    CHECK(c.steps[*c.first_parted].step == 2);
    CHECK_FALSE(c.first_loss_differs());
  }
  SECTION("with it, step 2 is inside 1.5..1.6 and step 3 is past 1.2 + atol") {
    const LossComparison c = compare_losses(a, b, {repeat}, {1e-3, 0});
    REQUIRE(c.first_parted);
    const LossStep& parted = c.steps[*c.first_parted];
    CHECK(parted.step == 3);
    CHECK(parted.banded);
    CHECK(parted.low == Approx(1.1 - 1e-3));
    CHECK(parted.high == Approx(1.2 + 1e-3));
    CHECK(c.parted == 1);
    CHECK(c.steps[*c.largest_gap].step == 3);
    CHECK_THAT(loss_verdict(c), Catch::StartsWith("PARTED at step 3: a=1.2, b=1.3"));
  }
  SECTION("widened by rtol, step 3 fits too") {
    const LossComparison c = compare_losses(a, b, {repeat}, {0, 0.1});
    CHECK(c.matched());
    CHECK_THAT(loss_verdict(c), Catch::StartsWith("MATCH: all 3 common steps"));
  }
}

TEST_CASE("a first loss that differs is told apart from later drift", "[unit]") {
  const LossComparison c = compare_losses(curve({{1, 2.3}, {2, 2.0}}), curve({{1, 2.4}, {2, 2.0}}));
  CHECK(c.first_loss_differs());
  CHECK_THAT(first_loss_reading(c), Catch::Contains("The first loss differs"));
  const LossComparison later =
      compare_losses(curve({{1, 2.3}, {2, 2.0}}), curve({{1, 2.3}, {2, 2.1}}));
  CHECK_FALSE(later.first_loss_differs());
  CHECK_THAT(first_loss_reading(later), Catch::Contains("later losses drift"));
}

TEST_CASE("a NaN loss parts, and curves with no common step do not match", "[unit]") {
  const LossComparison nan =
      compare_losses(curve({{1, 2.3}, {2, 2.0}}), curve({{1, 2.3}, {2, NAN}}));
  REQUIRE(nan.first_parted);
  CHECK(nan.steps[*nan.first_parted].step == 2);
  CHECK(nan.steps[*nan.largest_gap].step == 2);
  const LossComparison apart = compare_losses(curve({{1, 2.3}}), curve({{2, 2.3}}));
  CHECK_FALSE(apart.matched());
  CHECK(apart.only_a == std::vector<std::int64_t>{1});
  CHECK(apart.only_b == std::vector<std::int64_t>{2});
}
