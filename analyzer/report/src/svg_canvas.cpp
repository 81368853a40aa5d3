#include "parity/analyzer/report/svg_canvas.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "parity/analyzer/report_format.hpp"

namespace parity::analyzer::svg {

std::string num(double value) {
  if (!std::isfinite(value)) value = 0;
  value = std::clamp(value, -1e7, 1e7);
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  std::string out = text;
  if (out.ends_with(".0")) out.resize(out.size() - 2);
  return out == "-0" ? "0" : out;
}

std::string escape(std::string_view text) {
  std::string kept;
  for (const char c : text)
    if (static_cast<unsigned char>(c) >= 0x20 || c == '\n' || c == '\t') kept += c;
  return xml_escape(kept);
}

std::string clip(const std::string& text, std::size_t max_chars) {
  std::vector<std::size_t> starts;  // where each character begins
  for (std::size_t i = 0; i < text.size(); ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) starts.push_back(i);
  if (starts.size() <= max_chars) return text;
  return text.substr(0, starts[max_chars - 1]) + "\xE2\x80\xA6";
}

double scale(double value, double max, double length) {
  if (!(max > 0) || !std::isfinite(max) || !std::isfinite(value)) return 0;
  return std::clamp(value / max, 0.0, 1.0) * length;
}

std::string tick_label(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

Svg::Svg(double height, std::string_view label) {
  out_ = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 " + num(kWidth) +
         ' ' + num(height) + "\" width=\"" + num(kWidth) + "\" height=\"" + num(height) +
         "\" role=\"img\" aria-label=\"" + escape(label) +
         "\" font-family=\"sans-serif\" font-size=\"11\">\n";
}

void Svg::rect(double x, double y, double w, double h, std::string_view fill,
               std::string_view tip) {
  out_ += "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(std::max(w, 0.0)) +
          "\" height=\"" + num(std::max(h, 0.0)) + "\" fill=\"" + std::string(fill) + '"';
  close_shape("rect", tip);
}

void Svg::line(double x1, double y1, double x2, double y2, std::string_view stroke, bool dashed,
               std::string_view tip) {
  out_ += "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" +
          num(y2) + "\" stroke=\"" + std::string(stroke) + '"' +
          (dashed ? " stroke-width=\"1.5\" stroke-dasharray=\"6 4\"" : "");
  close_shape("line", tip);
}

namespace {
std::string points_attribute(const std::vector<std::pair<double, double>>& points) {
  std::string out = " points=\"";
  for (std::size_t i = 0; i < points.size(); ++i)
    out += (i ? " " : "") + num(points[i].first) + ',' + num(points[i].second);
  return out + '"';
}
}  // namespace

void Svg::polyline(const std::vector<std::pair<double, double>>& points, std::string_view stroke,
                   std::string_view tip) {
  out_ += "<polyline fill=\"none\" stroke-width=\"1.5\" stroke=\"" + std::string(stroke) + '"' +
          points_attribute(points);
  close_shape("polyline", tip);
}

void Svg::polygon(const std::vector<std::pair<double, double>>& points, std::string_view fill,
                  double opacity, std::string_view tip) {
  char alpha[16];
  std::snprintf(alpha, sizeof alpha, "%.2f", std::clamp(opacity, 0.0, 1.0));
  out_ += "<polygon stroke=\"none\" fill=\"" + std::string(fill) + "\" fill-opacity=\"" + alpha +
          '"' + points_attribute(points);
  close_shape("polygon", tip);
}

void Svg::text(double x, double y, std::string_view content, std::string_view anchor,
               std::string_view fill) {
  out_ += "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" + std::string(anchor) +
          "\" fill=\"" + std::string(fill) + "\">" + escape(content) + "</text>\n";
}

void Svg::open_group(std::string_view tip) { out_ += "<g><title>" + escape(tip) + "</title>\n"; }
void Svg::close_group() { out_ += "</g>\n"; }

std::string Svg::finish() && { return std::move(out_) + "</svg>"; }

void Svg::close_shape(std::string_view element, std::string_view tip) {
  if (tip.empty()) {
    out_ += "/>\n";
    return;
  }
  out_ += "><title>" + escape(tip) + "</title></" + std::string(element) + ">\n";
}

Plot plot_in(double chart_height, double left, double top, double right, double bottom) {
  return {left, top, kWidth - left - right, chart_height - top - bottom};
}

// A value axis from 0 to `top` in steps of `step`: 1, 2 or 5 times a power

Ticks nice_ticks(double max) {
  if (!(max > 0) || !std::isfinite(max)) return {};
  const double raw = max / 5;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double fraction = raw / magnitude;
  const double step = (fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10) * magnitude;
  const double top = std::ceil(max / step - 1e-9) * step;
  return std::isfinite(top) ? Ticks{step, top} : Ticks{};
}

Ticks count_ticks(double max) {
  Ticks ticks = nice_ticks(std::max(max, 1.0));
  if (ticks.step < 1) ticks = {1, std::ceil(std::max(max, 1.0))};
  return ticks;
}

int tick_count(const Ticks& ticks) { return static_cast<int>(std::lround(ticks.top / ticks.step)); }

void y_axis(Svg& svg, const Plot& plot, const Ticks& ticks, std::string_view unit) {
  for (int i = 0; i <= tick_count(ticks); ++i) {
    const double value = i * ticks.step;
    const double y = plot.bottom() - scale(value, ticks.top, plot.height);
    svg.line(plot.left, y, plot.right(), y, i == 0 ? kAxisColour : kGridColour);
    svg.text(plot.left - 6, y + 4, tick_label(value), "end");
  }
  svg.text(plot.left - 6, plot.top - 10, unit, "end");
}

void legend(Svg& svg, double x, double y, const std::vector<LegendEntry>& entries) {
  for (const LegendEntry& entry : entries) {
    if (entry.dashed)
      svg.line(x, y - 4, x + 14, y - 4, entry.colour, true);
    else
      svg.rect(x + 2, y - 9, 10, 10, entry.colour);
    const std::string name = clip(entry.name, 40);
    svg.text(x + 18, y, name);
    // Sans-serif at 11 px averages under 7 px a character.
    x += 30 + 6.5 * static_cast<double>(name.size());
  }
}

}  // namespace parity::analyzer::svg
