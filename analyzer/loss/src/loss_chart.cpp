#include "loss_chart.hpp"

#include <algorithm>
#include <cmath>

#include "parity/analyzer/report/svg_canvas.hpp"
#include "parity/analyzer/report_format.hpp"

namespace parity::analyzer {
namespace {

using namespace svg;

constexpr double kHeight = 320;
constexpr std::string_view kBandColour = "#bab0ac";
constexpr std::string_view kPartedColour = "#e15759";

// Where the chart's axes end: the steps' span and the largest finite loss.
struct Extent {
  std::int64_t first = 0, last = 0;
  double max_loss = 0;
  bool any = false;
  void add(std::int64_t step, double loss) {
    if (!std::isfinite(loss)) return;
    first = any ? std::min(first, step) : step;
    last = any ? std::max(last, step) : step;
    max_loss = any ? std::max(max_loss, loss) : loss;
    any = true;
  }
};

class Axes {
 public:
  Axes(const Plot& plot, const Extent& extent, const Ticks& loss_ticks)
      : plot_(plot), extent_(extent), loss_ticks_(loss_ticks) {}
  double x(std::int64_t step) const {
    const double span = std::max<double>(static_cast<double>(extent_.last - extent_.first), 1);
    return plot_.left + scale(static_cast<double>(step - extent_.first), span, plot_.width);
  }
  double y(double loss) const {
    return plot_.bottom() - scale(loss, loss_ticks_.top, plot_.height);
  }

 private:
  Plot plot_;
  Extent extent_;
  Ticks loss_ticks_;
};

std::vector<std::pair<double, double>> curve_line(const LossCurve& curve, const Axes& axes) {
  std::vector<std::pair<double, double>> points;
  for (const LossPoint& point : curve.points)
    if (std::isfinite(point.loss)) points.emplace_back(axes.x(point.step), axes.y(point.loss));
  return points;
}

// low along the steps, then high back: the band B had to stay in.
std::vector<std::pair<double, double>> band_outline(const std::vector<LossStep>& steps,
                                                    const Axes& axes) {
  std::vector<std::pair<double, double>> outline;
  for (const LossStep& step : steps) outline.emplace_back(axes.x(step.step), axes.y(step.low));
  for (auto it = steps.rbegin(); it != steps.rend(); ++it)
    outline.emplace_back(axes.x(it->step), axes.y(it->high));
  return outline;
}

void step_axis(Svg& svg, const Plot& plot, const Extent& extent, const Axes& axes) {
  const Ticks ticks = nice_ticks(static_cast<double>(extent.last - extent.first));
  const double origin = static_cast<double>(extent.first);
  for (int i = 0; i <= tick_count(ticks); ++i) {
    const double step = origin + i * ticks.step;
    if (step > static_cast<double>(extent.last) + 1e-9) break;
    const double x = axes.x(static_cast<std::int64_t>(std::llround(step)));
    svg.line(x, plot.bottom(), x, plot.bottom() + 4, kAxisColour);
    svg.text(x, plot.bottom() + 16, tick_label(std::round(step)), "middle");
  }
  svg.text(plot.right(), plot.bottom() + 30, "step", "end");
}

}  // namespace

std::string loss_chart(const LossComparison& comparison) {
  Extent extent;
  for (const LossCurve* curve : {&comparison.a, &comparison.b})
    for (const LossPoint& point : curve->points) extent.add(point.step, point.loss);
  for (const LossStep& step : comparison.steps) extent.add(step.step, step.high);
  if (!extent.any) return {};
  const Plot plot = plot_in(kHeight, 56, 36, 12, 34);
  const Ticks loss_ticks = nice_ticks(extent.max_loss);
  const Axes axes(plot, extent, loss_ticks);
  Svg svg(kHeight, "loss of A and B over the steps");
  legend(svg, plot.left, 14,
         {{"A: " + comparison.a.source, kSeriesColours[0]},
          {"B: " + comparison.b.source, kSeriesColours[1]},
          {comparison.band.empty() ? "A's tolerance" : "band of A's runs", kBandColour}});
  y_axis(svg, plot, loss_ticks, "loss");
  step_axis(svg, plot, extent, axes);
  if (!comparison.steps.empty())
    svg.polygon(band_outline(comparison.steps, axes), kBandColour, 0.45, "what B may be");
  svg.polyline(curve_line(comparison.a, axes), kSeriesColours[0], "A");
  svg.polyline(curve_line(comparison.b, axes), kSeriesColours[1], "B");
  if (comparison.first_parted) {
    const LossStep& parted = comparison.steps[*comparison.first_parted];
    const double x = axes.x(parted.step);
    const std::string label = "parted at step " + std::to_string(parted.step);
    svg.line(x, plot.top, x, plot.bottom(), kPartedColour, true, label);
    svg.text(x + 4, plot.top + 12, label, "start", kPartedColour);
  }
  return std::move(svg).finish();
}

}  // namespace parity::analyzer
