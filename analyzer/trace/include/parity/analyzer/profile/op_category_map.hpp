// Op-category maps: which category of work (convolution, normalization,
// optimizer, communication, ...) an op, kernel or phase name stands for,
// across frameworks, so that `parity diff-trace` can set a PyTorch trace
// beside one of Parity's trainer or of MindSpore although their op names
// differ. A map is ordered categories of name patterns, plus the patterns
// that tell a forward range from a backward one. The built-in map
// (analyzer/trace/data/default_op_categories.yaml, compiled in) covers
// PyTorch, cuDNN/cuBLAS/cutlass/NCCL kernels, oneDNN, Parity's trainer and
// MindSpore; a user's map file extends or replaces it. docs/op-categories.md
// gives the format and the built-in map whole.
#pragma once

#include <filesystem>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace parity::analyzer {

// One pattern: a glob (* and ?; the whole name, case ignored) or, written
// "re:REGEX", an ECMAScript regex searched in the name, case kept.
class NamePattern {
 public:
  // Throws parity::Error naming `where` for a regex that does not compile.
  NamePattern(std::string text, const std::string& where);
  bool matches(std::string_view name) const;
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  std::string glob_;                 // lower-cased; empty for a regex
  std::optional<std::regex> regex_;  // set for "re:" patterns
};

struct OpCategory {
  std::string name;
  // The category takes all the time of the ranges nested in its ranges, as
  // the optimizer takes the aten ops inside Optimizer.step; otherwise a
  // nested range of another category keeps its own time.
  bool claims_nested = false;
  bool claims_nested_given = false;  // the map said; extend_with keeps the old value otherwise
  std::vector<NamePattern> patterns;
};

enum class OpPhase { kUnknown, kForward, kBackward };

class OpCategoryMap {
 public:
  // The built-in map.
  static OpCategoryMap builtin();
  // The YAML text of the built-in map, as docs/op-categories.md shows it.
  static std::string_view builtin_text();
  // Reads a map from YAML `text`; `source` names it in errors (a file path).
  // Throws parity::Error with source:line for bad YAML, unknown keys, a
  // category without name or patterns, and bad regexes.
  static OpCategoryMap parse(const std::string& text, const std::string& source);
  // A user's map file on top of the built-in one (see extend_with), or alone
  // when the file says `builtin: false`.
  static OpCategoryMap with_file(const std::filesystem::path& path);

  // The user's categories are tried before these; one whose name is already
  // here keeps its place in the order, its patterns are tried before the old
  // ones and its claims_nested, where given, replaces the old one. Phase
  // patterns are added in front likewise.
  void extend_with(const OpCategoryMap& user);

  // The index of the first category that matches, or nullopt.
  std::optional<std::size_t> category_of(std::string_view name) const;
  // Backward when a backward pattern matches, else forward when a forward one does.
  OpPhase phase_of(std::string_view name) const;

  const std::vector<OpCategory>& categories() const { return categories_; }
  const std::string& description() const { return description_; }  // "built-in", a path, ...
  bool uses_builtin() const { return uses_builtin_; }

 private:
  std::vector<OpCategory> categories_;
  std::vector<NamePattern> backward_, forward_;
  std::string description_;
  bool uses_builtin_ = true;
};

}  // namespace parity::analyzer
