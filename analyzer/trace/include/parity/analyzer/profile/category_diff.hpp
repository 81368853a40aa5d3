// Category diff: two runs' step time by op category side by side (the
// section of `parity diff-trace` that pairs different frameworks' ops
// through an op-category map, category_analysis.hpp), rendered into the
// diff's Document and JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "parity/analyzer/profile/category_analysis.hpp"
#include "parity/analyzer/report/document.hpp"

namespace parity::analyzer {

struct CategorySide {
  double time_per_step_ns = 0;
  double step_share = 0;                                     // of the run's steady-state step time
  double forward_per_step_ns = 0, backward_per_step_ns = 0;  // where the phase is known
};

struct CategoryRow {
  std::string category;
  CategorySide a, b;
  double delta_per_step_ns() const { return b.time_per_step_ns - a.time_per_step_ns; }
};

struct CategoryDiff {
  std::string map;  // the map's description
  // Categorised host time / step time of each side.
  double a_paired_share = 0, b_paired_share = 0;
  // Where B spends more than A first; uncategorised last; categories neither
  // run has left out. `device`: GPU time, empty when neither run has any.
  std::vector<CategoryRow> host, device;
  bool empty() const { return host.empty(); }
};

CategoryDiff diff_categories(const CategoryProfile& a, const CategoryProfile& b);

// The category tables and each side's paired share; nothing for an empty diff.
void add_category_sections(Document& doc, const CategoryDiff& diff);
nlohmann::json to_json(const CategoryDiff& diff);

}  // namespace parity::analyzer
