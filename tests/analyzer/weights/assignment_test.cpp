// best_assignment against exhaustive search on small random matrices.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <random>

#include "parity/analyzer/weights/assignment.hpp"

using parity::analyzer::best_assignment;
using Matrix = std::vector<std::vector<std::optional<double>>>;

namespace {

struct Value {
  std::size_t pairs = 0;
  double score = 0;
};

// Most allowed pairs first, then the largest score: what best_assignment promises.
bool better(const Value& x, const Value& y) {
  return x.pairs != y.pairs ? x.pairs > y.pairs : x.score > y.score + 1e-9;
}

Value exhaustive(const Matrix& score, std::size_t row, std::vector<bool>& used) {
  if (row == score.size()) return {};
  Value best = exhaustive(score, row + 1, used);  // leave this row unassigned
  for (std::size_t column = 0; column < used.size(); ++column) {
    if (used[column] || !score[row][column]) continue;
    used[column] = true;
    Value value = exhaustive(score, row + 1, used);
    used[column] = false;
    value.pairs += 1;
    value.score += *score[row][column];
    if (better(value, best)) best = value;
  }
  return best;
}

}  // namespace

TEST_CASE("best_assignment matches exhaustive search", "[unit][weights]") {
  std::mt19937 random(7);
  std::uniform_real_distribution<double> score(0.0, 5.0);
  std::bernoulli_distribution forbidden(0.3);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t rows = 1 + trial % 6, columns = 1 + (trial / 6) % 6;
    Matrix matrix(rows, std::vector<std::optional<double>>(columns));
    for (auto& row : matrix)
      for (auto& cell : row)
        if (!forbidden(random)) cell = score(random);

    const auto chosen = best_assignment(matrix);
    REQUIRE(chosen.size() == rows);
    Value got;
    std::vector<bool> taken(columns, false);
    for (std::size_t r = 0; r < rows; ++r) {
      if (!chosen[r]) continue;
      REQUIRE(*chosen[r] < columns);
      REQUIRE_FALSE(taken[*chosen[r]]);
      REQUIRE(matrix[r][*chosen[r]].has_value());
      taken[*chosen[r]] = true;
      got.pairs += 1;
      got.score += *matrix[r][*chosen[r]];
    }
    std::vector<bool> used(columns, false);
    const Value best = exhaustive(matrix, 0, used);
    INFO("trial " << trial << ": " << rows << "x" << columns);
    CHECK(got.pairs == best.pairs);
    CHECK(got.score == Approx(best.score).epsilon(1e-9));
  }
}

TEST_CASE("best_assignment of empty and fully forbidden matrices", "[unit][weights]") {
  CHECK(best_assignment({}).empty());
  const Matrix none(3, std::vector<std::optional<double>>(2));
  for (const auto& row : best_assignment(none)) CHECK_FALSE(row.has_value());
}
