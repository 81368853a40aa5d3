// Pairs the parameters of two files whose naming schemes are unknown, from
// the names' structure, the shapes and the file order, never from the values
// (a diff must not pair gamma with bias because a conversion swapped them).
//
// First modules are paired (a module is a name's path without its leaf):
// modules may pair only when they share a tensor shape, and score by equal
// index numbers (layer3.2 vs layer3.2), similar letters of the path, their
// relative position in the file and how many shapes they share. Then the
// tensors inside each module pair are paired by leaf (synonyms folded) and
// position, and what is left over is paired globally by shape and name.
// Every pair gets a confidence from the margin to its best rival.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace parity::analyzer {

struct ParameterShape {
  std::string name;
  std::vector<std::int64_t> shape;
};

struct StructuralPair {
  std::size_t a = 0, b = 0;  // indices into the two inputs
  double confidence = 1.0;   // in (0, 1]; 1 when no rival comes close
  // Set when another candidate scored within a hair of the chosen one.
  std::optional<std::size_t> rival_b;
};

// Pairs as many of `a` with `b` as shapes allow; each index appears at most once.
std::vector<StructuralPair> pair_by_structure(const std::vector<ParameterShape>& a,
                                              const std::vector<ParameterShape>& b);

}  // namespace parity::analyzer
