#include "parity/analyzer/weights/structural_pairing.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "parity/analyzer/weights/assignment.hpp"
#include "parity/analyzer/weights/name_features.hpp"

namespace parity::analyzer {
namespace {

using ScoreMatrix = std::vector<std::vector<std::optional<double>>>;

// Score weights: equal index numbers dominate (layer3.2 is never layer3.3),
// then similar letters and shared shapes, then the position in the file.
constexpr double kNumbersWeight = 3.0;
constexpr double kLettersWeight = 2.0;
constexpr double kSharedShapesWeight = 2.0;
constexpr double kPositionWeight = 1.0;
// A rival within this much of the chosen score makes a pair ambiguous.
constexpr double kAmbiguousMargin = 0.1;

struct Side {
  const std::vector<ParameterShape>* params;
  std::vector<NameFeatures> features;
};

struct Module {
  std::vector<std::size_t> members;  // parameter indices, in file order
  double position = 0;               // 0 for the first module of the file, 1 for the last
};

double relative(std::size_t index, std::size_t count) {
  return count <= 1 ? 0.0 : static_cast<double>(index) / static_cast<double>(count - 1);
}

std::vector<Module> group_modules(const Side& side) {
  std::vector<Module> modules;
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < side.features.size(); ++i) {
    const auto [it, added] = index.emplace(side.features[i].module, modules.size());
    if (added) modules.emplace_back();
    modules[it->second].members.push_back(i);
  }
  for (std::size_t m = 0; m < modules.size(); ++m) modules[m].position = relative(m, modules.size());
  return modules;
}

std::size_t shared_shapes(const Side& a, const Module& ma, const Side& b, const Module& mb) {
  std::vector<const std::vector<std::int64_t>*> left, right;
  for (const std::size_t i : ma.members) left.push_back(&(*a.params)[i].shape);
  for (const std::size_t j : mb.members) right.push_back(&(*b.params)[j].shape);
  std::size_t shared = 0;
  for (const auto* shape : left) {
    const auto match = std::find_if(right.begin(), right.end(),
                                    [shape](const auto* other) { return other && *other == *shape; });
    if (match != right.end()) {
      *match = nullptr;
      ++shared;
    }
  }
  return shared;
}

// The margin of each chosen pair over the best other candidate in its row or
// column, turned into a confidence; also the rival's column when it is close.
struct Margin {
  double confidence = 1.0;
  std::optional<std::size_t> rival;
};

Margin margin_of(const ScoreMatrix& score, std::size_t row, std::size_t column) {
  const double chosen = *score[row][column];
  double best_rival = -1e300;
  std::optional<std::size_t> rival_column;
  for (std::size_t j = 0; j < score[row].size(); ++j)
    if (j != column && score[row][j] && *score[row][j] > best_rival) {
      best_rival = *score[row][j];
      rival_column = j;
    }
  for (std::size_t i = 0; i < score.size(); ++i)
    if (i != row && score[i][column] && *score[i][column] > best_rival) {
      best_rival = *score[i][column];
      rival_column.reset();  // the rival is another row; there is no other column to name
    }
  Margin margin;
  if (best_rival == -1e300) return margin;
  const double gap = chosen - best_rival;
  margin.confidence = std::clamp(0.5 + gap / 2.0, 0.01, 1.0);
  if (gap < kAmbiguousMargin) margin.rival = rival_column;
  return margin;
}

struct Chosen {
  std::size_t row, column;
  Margin margin;
};

std::vector<Chosen> solve(const ScoreMatrix& score) {
  std::vector<Chosen> out;
  const auto assignment = best_assignment(score);
  for (std::size_t row = 0; row < assignment.size(); ++row)
    if (assignment[row]) out.push_back({row, *assignment[row], margin_of(score, row, *assignment[row])});
  return out;
}

class Pairer {
 public:
  Pairer(const std::vector<ParameterShape>& a, const std::vector<ParameterShape>& b)
      : a_{&a, {}}, b_{&b, {}}, used_a_(a.size(), false), used_b_(b.size(), false) {
    for (const auto& param : a) a_.features.push_back(name_features(param.name));
    for (const auto& param : b) b_.features.push_back(name_features(param.name));
  }

  std::vector<StructuralPair> run() {
    pair_modules();
    pair_leftovers();
    std::sort(pairs_.begin(), pairs_.end(), [](const auto& x, const auto& y) { return x.a < y.a; });
    return pairs_;
  }

 private:
  void pair_modules() {
    const std::vector<Module> left = group_modules(a_), right = group_modules(b_);
    ScoreMatrix score(left.size(), std::vector<std::optional<double>>(right.size()));
    for (std::size_t i = 0; i < left.size(); ++i)
      for (std::size_t j = 0; j < right.size(); ++j) {
        const std::size_t shared = shared_shapes(a_, left[i], b_, right[j]);
        if (shared == 0) continue;
        const NameFeatures& fa = a_.features[left[i].members.front()];
        const NameFeatures& fb = b_.features[right[j].members.front()];
        const double size = static_cast<double>(std::max(left[i].members.size(), right[j].members.size()));
        score[i][j] = kNumbersWeight * (fa.numbers == fb.numbers ? 1.0 : 0.0) +
                      kLettersWeight * bigram_similarity(fa.module_letters, fb.module_letters) +
                      kPositionWeight * (1.0 - std::abs(left[i].position - right[j].position)) +
                      kSharedShapesWeight * static_cast<double>(shared) / size;
      }
    for (const Chosen& module_pair : solve(score))
      pair_leaves(left[module_pair.row].members, right[module_pair.column].members,
                  module_pair.margin.confidence);
  }

  void pair_leaves(const std::vector<std::size_t>& left, const std::vector<std::size_t>& right,
                   double module_confidence) {
    ScoreMatrix score(left.size(), std::vector<std::optional<double>>(right.size()));
    for (std::size_t i = 0; i < left.size(); ++i)
      for (std::size_t j = 0; j < right.size(); ++j) {
        if ((*a_.params)[left[i]].shape != (*b_.params)[right[j]].shape) continue;
        score[i][j] = kLettersWeight * bigram_similarity(a_.features[left[i]].leaf_letters,
                                                         b_.features[right[j]].leaf_letters) +
                      kPositionWeight * (1.0 - std::abs(relative(i, left.size()) -
                                                        relative(j, right.size())));
      }
    for (const Chosen& leaf : solve(score))
      add_pair(left[leaf.row], right[leaf.column],
               std::min(module_confidence, leaf.margin.confidence),
               leaf.margin.rival ? std::optional(right[*leaf.margin.rival]) : std::nullopt);
  }

  // Tensors whose modules found no partner (or whose partner module lacked
  // their shape), paired by shape, index numbers, letters and position.
  void pair_leftovers() {
    std::map<std::vector<std::int64_t>, std::pair<std::vector<std::size_t>, std::vector<std::size_t>>> by_shape;
    for (std::size_t i = 0; i < used_a_.size(); ++i)
      if (!used_a_[i]) by_shape[(*a_.params)[i].shape].first.push_back(i);
    for (std::size_t j = 0; j < used_b_.size(); ++j)
      if (!used_b_[j]) by_shape[(*b_.params)[j].shape].second.push_back(j);
    for (const auto& [shape, group] : by_shape) {
      const auto& [left, right] = group;
      if (left.empty() || right.empty()) continue;
      ScoreMatrix score(left.size(), std::vector<std::optional<double>>(right.size()));
      for (std::size_t i = 0; i < left.size(); ++i)
        for (std::size_t j = 0; j < right.size(); ++j) {
          const NameFeatures& fa = a_.features[left[i]];
          const NameFeatures& fb = b_.features[right[j]];
          score[i][j] =
              kNumbersWeight * (fa.numbers == fb.numbers ? 1.0 : 0.0) +
              kLettersWeight * bigram_similarity(fa.module_letters + fa.leaf_letters,
                                                 fb.module_letters + fb.leaf_letters) +
              kPositionWeight * (1.0 - std::abs(relative(left[i], used_a_.size()) -
                                                relative(right[j], used_b_.size())));
        }
      for (const Chosen& chosen : solve(score))
        add_pair(left[chosen.row], right[chosen.column], chosen.margin.confidence,
                 chosen.margin.rival ? std::optional(right[*chosen.margin.rival]) : std::nullopt);
    }
  }

  void add_pair(std::size_t a, std::size_t b, double confidence, std::optional<std::size_t> rival) {
    used_a_[a] = used_b_[b] = true;
    pairs_.push_back({a, b, confidence, rival});
  }

  Side a_, b_;
  std::vector<bool> used_a_, used_b_;
  std::vector<StructuralPair> pairs_;
};

}  // namespace

std::vector<StructuralPair> pair_by_structure(const std::vector<ParameterShape>& a,
                                              const std::vector<ParameterShape>& b) {
  return Pairer(a, b).run();
}

}  // namespace parity::analyzer
