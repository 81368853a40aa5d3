// The drawing kit of the HTML reports' SVG charts (the profile report's and
// loss-compare's): an Svg element written a shape at a time, a plot area
// inside margins, value axes with round ticks, and a legend. Everything it
// writes is well-formed XML on its own: every number finite, every text
// escaped, tooltips in <title> elements.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parity::analyzer::svg {

inline constexpr double kWidth = 900;
inline constexpr std::string_view kAxisColour = "#888";
inline constexpr std::string_view kGridColour = "#e4e4e4";
inline constexpr std::string_view kLabelColour = "#444";
// Tableau 10: distinct, and still distinct for most colour-blind readers.
inline constexpr std::array<std::string_view, 6> kSeriesColours = {"#4e79a7", "#f28e2b", "#59a14f",
                                                                   "#b07aa1", "#edc948", "#9c755f"};

// A number for an SVG attribute: one decimal, and never "nan" or "inf" (a
// coordinate that is not finite, or absurdly far off the chart, is clamped).
std::string num(double value);
// Text for SVG content or attributes: escaped, and without the control
// characters XML does not allow anywhere.
std::string escape(std::string_view text);
// At most `max_chars` characters (UTF-8 code points), ending in an ellipsis
// when cut; the full text goes into the tooltip.
std::string clip(const std::string& text, std::size_t max_chars);
// `value` of `max` as a length in [0, length]; 0 for anything not measurable.
double scale(double value, double max, double length);
std::string tick_label(double value);

// An SVG element written as text, a shape at a time.
class Svg {
 public:
  Svg(double height, std::string_view label);

  void rect(double x, double y, double w, double h, std::string_view fill,
            std::string_view tip = {});
  void line(double x1, double y1, double x2, double y2, std::string_view stroke,
            bool dashed = false, std::string_view tip = {});
  void polyline(const std::vector<std::pair<double, double>>& points, std::string_view stroke,
                std::string_view tip);
  // A closed, filled shape (a band between two lines).
  void polygon(const std::vector<std::pair<double, double>>& points, std::string_view fill,
               double opacity, std::string_view tip);
  void text(double x, double y, std::string_view content, std::string_view anchor = "start",
            std::string_view fill = kLabelColour);
  // Shapes between open_group and close_group share one tooltip.
  void open_group(std::string_view tip);
  void close_group();

  std::string finish() &&;

 private:
  void close_shape(std::string_view element, std::string_view tip);

  std::string out_;
};

// The plot area of a chart, inside its margins.
struct Plot {
  double left = 0, top = 0, width = 0, height = 0;
  double right() const { return left + width; }
  double bottom() const { return top + height; }
};

Plot plot_in(double chart_height, double left, double top, double right, double bottom);

// A value axis from 0 to `top` in steps of `step`: 1, 2 or 5 times a power
// of ten, about five ticks.
struct Ticks {
  double step = 0.2, top = 1;
};

Ticks nice_ticks(double max);
// The same for counts: whole steps.
Ticks count_ticks(double max);
int tick_count(const Ticks& ticks);

// Grid lines and labels of a vertical value axis, with its unit on top.
void y_axis(Svg& svg, const Plot& plot, const Ticks& ticks, std::string_view unit);

// A row of coloured squares and names; `dashed` entries get a dashed line.
struct LegendEntry {
  std::string name;
  std::string_view colour;
  bool dashed = false;
};

void legend(Svg& svg, double x, double y, const std::vector<LegendEntry>& entries);

}  // namespace parity::analyzer::svg
