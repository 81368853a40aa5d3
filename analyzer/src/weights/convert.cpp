#include "parity/analyzer/weights/convert.hpp"

#include <set>

#include "parity/analyzer/weights/name_map.hpp"
#include "parity/analyzer/weights/pairing.hpp"
#include "parity/core/error.hpp"

namespace parity::analyzer {
namespace {

using importers::TensorEntry;

struct Plan {
  std::vector<std::optional<std::string>> new_name;  // per input entry; nullopt: dropped
  std::vector<DroppedTensor> dropped;
};

Plan plan_by_map(const std::vector<TensorEntry>& entries, const std::string& map_spec) {
  std::vector<std::string> names;
  for (const TensorEntry& entry : entries) names.push_back(entry.name);
  const std::vector<MappedName> mapped = make_name_map(map_spec)->apply(names);
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
      throw Error("'" + entries[pair.a].name + "' " + importers::shape_to_string(entries[pair.a].shape) +
                      " pairs with '" + targets[pair.b].name + "' " +
                      importers::shape_to_string(targets[pair.b].shape) + " of the reference: the shapes differ",
                  input.path().string(), "check the two are the same network (parity diff shows every pair)");
    plan.new_name[pair.a] = targets[pair.b].name;
  }
  for (const std::size_t i : pairing.only_a)
    plan.dropped.push_back({entries[i].name, "no counterpart in " + reference_path.string()});
  for (const Lonely& lonely : pairing.no_counterpart_a)
    plan.dropped.push_back({entries[lonely.index].name, lonely.reason});
  return plan;
}

}  // namespace

ConvertReport convert_checkpoint(const importers::TensorSource& input, const std::filesystem::path& output,
                                 const ConvertOptions& options) {
  const auto& entries = input.entries();
  const Plan plan = options.like ? plan_like(input, *options.like, options.map) : plan_by_map(entries, options.map);

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
  importers::write_tensor_file(output, tensors);
  report.written = tensors.size();
  return report;
}

}  // namespace parity::analyzer
