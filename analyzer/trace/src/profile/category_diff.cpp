#include "parity/analyzer/profile/category_diff.hpp"

#include <algorithm>

#include "parity/analyzer/profile/units.hpp"

namespace parity::analyzer {
namespace {

CategorySide side_of(const CategoryTime& time, const CategoryProfile& profile) {
  const double steps = static_cast<double>(std::max<std::size_t>(1, profile.steps));
  return {time.total_ns / steps, profile.step_ns > 0 ? time.total_ns / profile.step_ns : 0,
          time.forward_ns / steps, time.backward_ns / steps};
}

// Both sides come from maps of the same categories in the same order.
std::vector<CategoryRow> diff_rows(const CategoryProfile& a,
                                   const std::vector<CategoryTime>& a_times,
                                   const CategoryProfile& b,
                                   const std::vector<CategoryTime>& b_times) {
  std::vector<CategoryRow> rows;
  const std::size_t count = std::max(a_times.size(), b_times.size());
  for (std::size_t i = 0; i < count; ++i) {
    CategoryRow row;
    row.category = (i < a_times.size() ? a_times[i] : b_times[i]).category;
    if (i < a_times.size()) row.a = side_of(a_times[i], a);
    if (i < b_times.size()) row.b = side_of(b_times[i], b);
    if (row.a.time_per_step_ns > 0 || row.b.time_per_step_ns > 0) rows.push_back(std::move(row));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const CategoryRow& x, const CategoryRow& y) {
    const bool x_last = x.category == kUncategorised, y_last = y.category == kUncategorised;
    if (x_last != y_last) return y_last;
    return x.delta_per_step_ns() > y.delta_per_step_ns();
  });
  return rows;
}

// "fwd / bwd", "-" for a part of unknown phase or none.
std::string phase_split(const CategorySide& side) {
  if (side.forward_per_step_ns <= 0 && side.backward_per_step_ns <= 0) return "-";
  const auto part = [](double ns) { return ns > 0 ? format_duration(ns) : "-"; };
  return part(side.forward_per_step_ns) + " / " + part(side.backward_per_step_ns);
}

Table category_table(const std::vector<CategoryRow>& rows) {
  Table table{{"category", "time/step A", "time/step B", "difference", "share A", "share B",
               "fwd / bwd A", "fwd / bwd B"},
              {},
              {}};
  for (const CategoryRow& row : rows) {
    const double delta = row.delta_per_step_ns();
    table.rows.push_back({row.category, format_duration(row.a.time_per_step_ns),
                          format_duration(row.b.time_per_step_ns),
                          (delta > 0 ? "+" : "") + format_duration(delta),
                          format_percent(row.a.step_share), format_percent(row.b.step_share),
                          phase_split(row.a), phase_split(row.b)});
  }
  return table;
}

nlohmann::json side_json(const CategorySide& side) {
  return {{"time_per_step_ns", side.time_per_step_ns},
          {"step_share", side.step_share},
          {"forward_per_step_ns", side.forward_per_step_ns},
          {"backward_per_step_ns", side.backward_per_step_ns}};
}

nlohmann::json rows_json(const std::vector<CategoryRow>& rows) {
  nlohmann::json list = nlohmann::json::array();
  for (const CategoryRow& row : rows)
    list.push_back({{"category", row.category},
                    {"a", side_json(row.a)},
                    {"b", side_json(row.b)},
                    {"delta_per_step_ns", row.delta_per_step_ns()}});
  return list;
}

}  // namespace

CategoryDiff diff_categories(const CategoryProfile& a, const CategoryProfile& b) {
  CategoryDiff diff;
  diff.map = a.map;
  diff.a_paired_share = a.paired_share();
  diff.b_paired_share = b.paired_share();
  diff.host = diff_rows(a, a.host, b, b.host);
  diff.device = diff_rows(a, a.device, b, b.device);
  return diff;
}

void add_category_sections(Document& doc, const CategoryDiff& diff) {
  if (diff.empty()) return;
  doc.heading("Op categories (where B spends more than A first)", 2, "categories");
  doc.paragraph("host self time per steady-state step by op category (map: " + diff.map +
                "); paired share, the step time in categorised ops: A " +
                format_percent(diff.a_paired_share) + ", B " + format_percent(diff.b_paired_share));
  doc.table(category_table(diff.host));
  if (diff.device.empty()) return;
  doc.heading("GPU time by op category (where B spends more than A first)", 2, "device-categories");
  doc.table(category_table(diff.device));
}

nlohmann::json to_json(const CategoryDiff& diff) {
  return {{"map", diff.map},
          {"a_paired_share", diff.a_paired_share},
          {"b_paired_share", diff.b_paired_share},
          {"host", rows_json(diff.host)},
          {"device", rows_json(diff.device)}};
}

}  // namespace parity::analyzer
