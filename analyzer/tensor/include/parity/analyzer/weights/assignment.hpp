// The assignment problem (Hungarian method): pick at most one column per row
// and one row per column so that the total score is largest. Used by the
// automatic parameter pairing, where rows and columns are the two files'
// modules or tensors.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace parity::analyzer {

// score[row][col]; nullopt marks a pair that must not be chosen. Returns, per
// row, the chosen column or nullopt. O(n^2 m) for n rows and m columns.
std::vector<std::optional<std::size_t>> best_assignment(
    const std::vector<std::vector<std::optional<double>>>& score);

}  // namespace parity::analyzer
