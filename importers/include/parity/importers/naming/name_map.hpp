// Name maps: how the parameter names of one checkpoint (side A) become the
// names of another (side B). A map turns a whole list of names at once,
// because some rules need the neighbours of a name (a module that holds a
// running_mean is a batch norm, so its `weight` is MindSpore's `gamma`).
//
// Built-in maps (directed, A -> B):
//   mindspore-to-torch   gamma/beta/moving_mean/moving_variance ->
//   weight/bias/running_mean/running_var torch-to-mindspore   the reverse; num_batches_tracked has
//   no counterpart modelzoo-to-torch    as mindspore-to-torch, plus down_sample_layer ->
//   downsample, end_point -> fc torch-to-modelzoo    the reverse identity             names are the
//   same on both sides
// A rule file (YAML or JSON) holds ordered regex rules and the names with no
// counterpart; see docs/diff.md.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace parity::importers {

// What a map makes of one name of side A.
struct MappedName {
  enum class Kind { kMapped, kNoCounterpart };
  Kind kind = Kind::kMapped;
  std::string name;  // the side-B name (kMapped) or the reason (kNoCounterpart)
};

class NameMap {
 public:
  virtual ~NameMap() = default;
  // A short name for reports: the built-in's name or the rule file's path.
  virtual std::string description() const = 0;
  // One result per input name, in the same order.
  virtual std::vector<MappedName> apply(const std::vector<std::string>& names) const = 0;
  // Per side-B name, the reason it has by design no counterpart in A
  // (MindSpore -> PyTorch: num_batches_tracked), else nullopt.
  virtual std::vector<std::optional<std::string>> lonely_in_b(
      const std::vector<std::string>& names) const = 0;
};

// The names of the built-in maps, in the order the automatic mode tries them.
std::vector<std::string> builtin_map_names();
// A built-in map by name, or nullptr.
std::unique_ptr<NameMap> make_builtin_map(std::string_view name);
// The reverse of a built-in map ("torch-to-mindspore" for "mindspore-to-torch").
std::string reverse_builtin_map_name(std::string_view name);

// A rule file:
//   rules:                         # applied in order, each wherever it matches
//     - {from: '^backbone\.', to: ''}
//     - {from: '\.gamma$', to: '.weight'}
//   no_counterpart:                # regexes: side-A names (after the rules) and side-B names
//     - 'num_batches_tracked$'
// `to` uses ECMAScript replacement syntax ($1, $2, ...). Throws parity::Error
// naming the file and the rule for unreadable files, unknown keys and bad regexes.
std::unique_ptr<NameMap> load_rule_file(const std::filesystem::path& path);

// `spec` is a built-in map's name or a rule file's path; throws parity::Error
// listing the built-ins when it is neither.
std::unique_ptr<NameMap> make_name_map(const std::string& spec);

}  // namespace parity::importers
