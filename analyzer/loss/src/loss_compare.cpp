#include "parity/analyzer/loss/loss_compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace parity::analyzer {
namespace {

// The lowest and highest loss of the runs at each step (A and its repeats).
std::map<std::int64_t, std::pair<double, double>> band_by_step(const LossCurve& a,
                                                               const std::vector<LossCurve>& band) {
  std::map<std::int64_t, std::pair<double, double>> range;
  const auto add = [&range](const LossCurve& curve) {
    for (const LossPoint& point : curve.points) {
      const auto [it, fresh] = range.emplace(point.step, std::pair{point.loss, point.loss});
      it->second.first = std::min(it->second.first, point.loss);
      it->second.second = std::max(it->second.second, point.loss);
    }
  };
  add(a);
  for (const LossCurve& run : band) add(run);
  return range;
}

LossStep judge(std::int64_t step, double a, double b, std::pair<double, double> range, bool banded,
               const LossTolerance& tolerance) {
  LossStep judged{step, a, b, 0, 0, banded, false};
  judged.low = range.first - (tolerance.atol + tolerance.rtol * std::abs(range.first));
  judged.high = range.second + (tolerance.atol + tolerance.rtol * std::abs(range.second));
  judged.parted = !std::isfinite(a) || !std::isfinite(b) || !std::isfinite(judged.low) ||
                  !std::isfinite(judged.high) || b < judged.low || b > judged.high;
  return judged;
}

}  // namespace

double LossStep::gap() const { return std::abs(b - a); }

LossComparison compare_losses(LossCurve a, LossCurve b, std::vector<LossCurve> band,
                              LossTolerance tolerance) {
  LossComparison result{
      std::move(a), std::move(b), std::move(band), tolerance, {}, {}, {}, {}, {}, 0};
  const auto range = band_by_step(result.a, result.band);
  const bool banded = !result.band.empty();
  std::size_t i = 0, j = 0;
  const auto& pa = result.a.points;
  const auto& pb = result.b.points;
  while (i < pa.size() || j < pb.size()) {
    if (j == pb.size() || (i < pa.size() && pa[i].step < pb[j].step)) {
      result.only_a.push_back(pa[i++].step);
    } else if (i == pa.size() || pb[j].step < pa[i].step) {
      result.only_b.push_back(pb[j++].step);
    } else {
      result.steps.push_back(
          judge(pa[i].step, pa[i].loss, pb[j].loss, range.at(pa[i].step), banded, tolerance));
      ++i, ++j;
    }
  }
  // A gap that is not a number (a NaN loss) is the largest of all.
  const auto comparable_gap = [](const LossStep& step) {
    return std::isnan(step.gap()) ? INFINITY : step.gap();
  };
  for (std::size_t k = 0; k < result.steps.size(); ++k) {
    const LossStep& step = result.steps[k];
    if (step.parted && !result.first_parted) result.first_parted = k;
    result.parted += step.parted ? 1 : 0;
    if (!result.largest_gap ||
        comparable_gap(step) > comparable_gap(result.steps[*result.largest_gap]))
      result.largest_gap = k;
  }
  return result;
}

}  // namespace parity::analyzer
