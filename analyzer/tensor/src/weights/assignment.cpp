// Hungarian method with potentials on a rectangular cost matrix (rows <=
// columns after an optional transpose), minimising cost = -score. Forbidden
// pairs get a cost larger than any real assignment could save, and any row
// that ends up on a forbidden pair is reported as unassigned.
#include "parity/analyzer/weights/assignment.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace parity::analyzer {
namespace {

// Rows 1..n assigned to columns 1..m (n <= m); returns the column of each row.
std::vector<std::size_t> hungarian(const std::vector<std::vector<double>>& cost, std::size_t n,
                                   std::size_t m) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<double> u(n + 1, 0), v(m + 1, 0);
  std::vector<std::size_t> row_of_column(m + 1, 0), way(m + 1, 0);
  for (std::size_t row = 1; row <= n; ++row) {
    row_of_column[0] = row;
    std::size_t column = 0;
    std::vector<double> min_slack(m + 1, kInf);
    std::vector<bool> used(m + 1, false);
    do {
      used[column] = true;
      const std::size_t current_row = row_of_column[column];
      double delta = kInf;
      std::size_t next = 0;
      for (std::size_t j = 1; j <= m; ++j) {
        if (used[j]) continue;
        const double slack = cost[current_row - 1][j - 1] - u[current_row] - v[j];
        if (slack < min_slack[j]) {
          min_slack[j] = slack;
          way[j] = column;
        }
        if (min_slack[j] < delta) {
          delta = min_slack[j];
          next = j;
        }
      }
      for (std::size_t j = 0; j <= m; ++j) {
        if (used[j]) {
          u[row_of_column[j]] += delta;
          v[j] -= delta;
        } else {
          min_slack[j] -= delta;
        }
      }
      column = next;
    } while (row_of_column[column] != 0);
    do {
      const std::size_t previous = way[column];
      row_of_column[column] = row_of_column[previous];
      column = previous;
    } while (column != 0);
  }
  std::vector<std::size_t> column_of_row(n, 0);
  for (std::size_t j = 1; j <= m; ++j)
    if (row_of_column[j] != 0) column_of_row[row_of_column[j] - 1] = j - 1;
  return column_of_row;
}

}  // namespace

std::vector<std::optional<std::size_t>> best_assignment(
    const std::vector<std::vector<std::optional<double>>>& score) {
  const std::size_t rows = score.size();
  const std::size_t columns = rows == 0 ? 0 : score[0].size();
  std::vector<std::optional<std::size_t>> result(rows);
  if (rows == 0 || columns == 0) return result;

  double largest = 0;
  for (const auto& row : score)
    for (const auto& value : row)
      if (value) largest = std::max(largest, std::abs(*value));
  // Cheaper to leave every row unassigned than to take one forbidden pair.
  const double forbidden = (largest + 1) * 2 * static_cast<double>(std::max(rows, columns)) + 1;

  const bool transpose = rows > columns;
  const std::size_t n = transpose ? columns : rows, m = transpose ? rows : columns;
  std::vector<std::vector<double>> cost(n, std::vector<double>(m));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < m; ++j) {
      const auto& value = transpose ? score[j][i] : score[i][j];
      cost[i][j] = value ? -*value : forbidden;
    }
  const std::vector<std::size_t> chosen = hungarian(cost, n, m);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t row = transpose ? chosen[i] : i, column = transpose ? i : chosen[i];
    if (score[row][column]) result[row] = column;
  }
  return result;
}

}  // namespace parity::analyzer
