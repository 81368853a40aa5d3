#include "parity/analyzer/weights/convert.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "parity/analyzer/weights/pairing.hpp"
#include "parity/core/error.hpp"
#include "parity/importers/naming/name_map.hpp"

namespace parity::analyzer {
namespace {

using importers::MappedName;
using importers::TensorEntry;

constexpr std::string_view kCreatedCounter =
    "created as 0: the input keeps no BatchNorm batch counters (MindSpore's BatchNorm has none)";

struct Plan {
  std::vector<std::optional<std::string>> new_name;  // per input entry; nullopt: dropped
  std::vector<TensorNote> dropped;
  std::vector<importers::TensorEntry> created;  // the reference's, to write as zeros
};

Plan plan_by_map(const std::vector<TensorEntry>& entries, const std::string& map_spec) {
  std::vector<std::string> names;
  for (const TensorEntry& entry : entries) names.push_back(entry.name);
  const std::vector<MappedName> mapped = importers::make_name_map(map_spec)->apply(names);
  Plan plan;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (mapped[i].kind == MappedName::Kind::kNoCounterpart) {
      plan.new_name.emplace_back();
      plan.dropped.push_back({entries[i].name, mapped[i].name});
    } else {
      plan.new_name.emplace_back(mapped[i].name);
    }
  }
  return plan;
}

Plan plan_like(const importers::TensorSource& input, const std::filesystem::path& reference_path,
               const std::string& map) {
  const auto reference = importers::open_tensor_file(reference_path);
  const auto& entries = input.entries();
  const auto& targets = reference->entries();
  const Pairing pairing = pair_tensors(entries, targets, map == "identity" ? "auto" : map);
  Plan plan;
  plan.new_name.resize(entries.size());
  for (const ParameterPair& pair : pairing.pairs) {
    if (entries[pair.a].shape != targets[pair.b].shape)
      throw Error("'" + entries[pair.a].name + "' " +
                      importers::shape_to_string(entries[pair.a].shape) + " pairs with '" +
                      targets[pair.b].name + "' " +
                      importers::shape_to_string(targets[pair.b].shape) +
                      " of the reference: the shapes differ",
                  input.path().string(),
                  "check the two are the same network (parity diff shows every pair)");
    plan.new_name[pair.a] = targets[pair.b].name;
  }
  for (const std::size_t i : pairing.only_a)
    plan.dropped.push_back({entries[i].name, "no counterpart in " + reference_path.string()});
  for (const Lonely& lonely : pairing.no_counterpart_a)
    plan.dropped.push_back({entries[lonely.index].name, lonely.reason});
  for (const SetAside& aside : pairing.training_state_a)
    plan.dropped.push_back({entries[aside.index].name,
                            std::string(importers::training_state_kind_name(aside.state.kind)) +
                                ": " + aside.state.what});
  for (const Lonely& lonely : pairing.no_counterpart_b) {
    const TensorEntry& target = targets[lonely.index];
    if (target.name.ends_with("num_batches_tracked") && target.shape.empty())
      plan.created.push_back(target);
  }
  return plan;
}

// The last dotted component of `name`.
std::string_view leaf_of(std::string_view name) {
  const auto dot = name.rfind('.');
  return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

std::string group_line(const std::vector<const TensorNote*>& group) {
  const TensorNote& first = *group.front();
  if (group.size() == 1) return first.name + ": " + first.note;
  const std::string_view leaf = leaf_of(first.name);
  const bool same_leaf = std::all_of(group.begin(), group.end(),
                                     [leaf](const auto* d) { return leaf_of(d->name) == leaf; });
  std::string line = std::to_string(group.size()) + " tensors";
  if (same_leaf) line += " named *." + std::string(leaf);
  return line + " (" + first.name + " ... " + group.back()->name + "): " + first.note;
}

}  // namespace

std::vector<std::string> summarize_notes(const std::vector<TensorNote>& notes) {
  std::vector<std::string> order;  // the notes in order of first appearance
  std::map<std::string, std::vector<const TensorNote*>> groups;
  for (const TensorNote& tensor : notes) {
    auto& group = groups[tensor.note];
    if (group.empty()) order.push_back(tensor.note);
    group.push_back(&tensor);
  }
  std::vector<std::string> lines;
  for (const std::string& note : order) lines.push_back(group_line(groups[note]));
  return lines;
}

ConvertReport convert_checkpoint(const importers::TensorSource& input,
                                 const std::filesystem::path& output,
                                 const ConvertOptions& options) {
  const auto& entries = input.entries();
  const Plan plan = options.like ? plan_like(input, *options.like, options.map)
                                 : plan_by_map(entries, options.map);

  ConvertReport report;
  report.dropped = plan.dropped;
  std::set<std::string> seen;
  std::vector<importers::NamedTensor> tensors;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (!plan.new_name[i]) continue;
    const std::string& name = *plan.new_name[i];
    if (!seen.insert(name).second)
      throw Error("two tensors would both be called '" + name + "'", input.path().string(),
                  "the name map sends two names to one; fix the rules");
    importers::NamedTensor tensor = input.read(entries[i].name);
    report.renamed += tensor.name != name ? 1 : 0;
    tensor.name = name;
    tensors.push_back(std::move(tensor));
  }
  for (const TensorEntry& counter : plan.created) {
    if (!seen.insert(counter.name).second) continue;  // the input had it under another name
    importers::NamedTensor zero;
    zero.name = counter.name;
    zero.dtype = counter.dtype;
    zero.data.resize(dtype_size(counter.dtype));
    tensors.push_back(std::move(zero));
    report.created.push_back({counter.name, std::string(kCreatedCounter)});
  }
  importers::write_tensor_file(output, tensors);
  report.written = tensors.size();
  return report;
}

}  // namespace parity::analyzer
