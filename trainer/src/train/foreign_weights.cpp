#include "parity/trainer/train/foreign_weights.hpp"

#include <algorithm>
#include <optional>

#include "parity/core/error.hpp"
#include "parity/importers/naming/map_choice.hpp"
#include "parity/importers/naming/training_state.hpp"
#include "parity/importers/tensor_source.hpp"
#include "parity/trainer/train/state_tensors.hpp"

namespace parity::trainer {
namespace {

using importers::NamedTensor;
using importers::TensorEntry;

// Names listed in full in an error; the rest are counted.
constexpr std::size_t kListed = 8;

// "3 missing (a, b, c)"; items that hold commas themselves are separated by "; ".
std::string listed(const std::vector<std::string>& items, const std::string& label,
                   const std::string& separator = ", ") {
  std::string text = std::to_string(items.size()) + " " + label + " (";
  for (std::size_t i = 0; i < items.size() && i < kListed; ++i)
    text += (i ? separator : "") + items[i];
  if (items.size() > kListed) text += ", and " + std::to_string(items.size() - kListed) + " more";
  return text + ")";
}

struct Misfit {
  std::vector<std::string> missing, extra, shapes, dtypes;

  bool empty() const {
    return missing.empty() && extra.empty() && shapes.empty() && dtypes.empty();
  }
  std::string describe() const {
    std::vector<std::string> parts;
    if (!missing.empty()) parts.push_back(listed(missing, "missing"));
    if (!extra.empty()) parts.push_back(listed(extra, "not in the network"));
    if (!shapes.empty()) parts.push_back(listed(shapes, "of another shape", "; "));
    if (!dtypes.empty()) parts.push_back(listed(dtypes, "of an unusable dtype", "; "));
    std::string text = "the file's tensors do not fit this network: ";
    for (std::size_t i = 0; i < parts.size(); ++i) text += (i ? "; " : "") + parts[i];
    return text;
  }
};

std::vector<TensorEntry> model_entries(const ModelState& state) {
  std::vector<TensorEntry> entries;
  for (const StateEntry& entry : state.entries)
    entries.push_back({entry.name,
                       entry.kind == StateEntry::kCounter ? DType::kInt64 : DType::kFloat32,
                       entry.kind == StateEntry::kCounter ? Dims{} : entry.shape});
  return entries;
}

// Whether a tensor of `dtype` can stand for a model entry of `target`:
// floating for a float32 parameter or buffer, an integer for a counter.
bool convertible(DType dtype, DType target) {
  if (dtype == DType::kBool) return false;
  return dtype_is_floating(dtype) == dtype_is_floating(target);
}

// The file's tensor as the model holds it: float32, or an int64 counter.
NamedTensor as_model_dtype(const NamedTensor& tensor, const TensorEntry& target) {
  if (tensor.dtype == target.dtype) return tensor;
  const std::vector<double> values = tensor.to_double();
  if (target.dtype == DType::kFloat32)
    return NamedTensor::from_values<float>(target.name, target.shape,
                                           std::vector<float>(values.begin(), values.end()));
  return NamedTensor::from_values<std::int64_t>(
      target.name, target.shape, std::vector<std::int64_t>(values.begin(), values.end()));
}

}  // namespace

ForeignWeights load_foreign_weights(Backend& backend, ModelState& state,
                                    const std::filesystem::path& path, const std::string& map) {
  const auto source = importers::open_tensor_file(path);
  ForeignWeights result;
  result.format = source->format();

  // The optimizer's state and the bookkeeping are no part of the network.
  std::vector<TensorEntry> file;
  std::size_t skipped = 0;
  const auto states = importers::classify_training_state(source->entries());
  for (std::size_t i = 0; i < states.size(); ++i)
    if (states[i])
      ++skipped;
    else
      file.push_back(source->entries()[i]);
  if (skipped > 0)
    result.notes.push_back("skipped " + std::to_string(skipped) +
                           " entries of optimizer state and training bookkeeping");

  const std::vector<TensorEntry> model = model_entries(state);
  const importers::MapMatch match = importers::match_names(file, model, map);
  result.naming = match.description();
  std::vector<std::optional<std::size_t>> source_of(model.size());
  for (std::size_t i = 0; i < file.size(); ++i)
    if (match.partner_of_a[i]) source_of[*match.partner_of_a[i]] = i;
  const bool file_has_counters = std::any_of(file.begin(), file.end(), [](const TensorEntry& e) {
    return e.name.ends_with("num_batches_tracked");
  });

  // First what fits and what does not, from the file's index alone.
  Misfit misfit;
  std::vector<std::pair<const TensorEntry*, const TensorEntry*>> loads;  // file entry, model entry
  std::vector<std::string> zeroed, converted;
  for (std::size_t j = 0; j < model.size(); ++j) {
    const TensorEntry& target = model[j];
    if (!source_of[j]) {
      const bool counter = state.entries[j].kind == StateEntry::kCounter;
      if (counter && (match.lonely_b[j] || !file_has_counters))
        zeroed.push_back(target.name);
      else
        misfit.missing.push_back(target.name);
      continue;
    }
    const TensorEntry& entry = file[*source_of[j]];
    const std::string pair =
        entry.name == target.name ? entry.name : entry.name + " as " + target.name;
    if (entry.shape != target.shape)
      misfit.shapes.push_back(pair + ": " + importers::shape_to_string(entry.shape) +
                              " in the file, " + importers::shape_to_string(target.shape) +
                              " in the network");
    else if (!convertible(entry.dtype, target.dtype))
      misfit.dtypes.push_back(pair + ": " + std::string(dtype_name(entry.dtype)) +
                              ", the network's is " + std::string(dtype_name(target.dtype)));
    else
      loads.emplace_back(&entry, &target);
    if (entry.dtype != target.dtype) converted.push_back(entry.name);
  }
  for (std::size_t i = 0; i < file.size(); ++i)
    if (!match.partner_of_a[i] && !match.lonely_a[i]) misfit.extra.push_back(file[i].name);
  if (!misfit.empty())
    throw Error(misfit.describe(), path.string(),
                "names were lined up by " + result.naming +
                    "; check the config's net_name and class_num, or give a name map (--map)");

  std::vector<NamedTensor> tensors;
  for (const auto& [entry, target] : loads) {
    NamedTensor tensor = as_model_dtype(source->read(entry->name), *target);
    tensor.name = target->name;
    tensors.push_back(std::move(tensor));
  }
  for (const std::string& name : zeroed)
    tensors.push_back(
        NamedTensor::from_values<std::int64_t>(name, {}, std::vector<std::int64_t>{0}));
  if (!converted.empty())
    result.notes.push_back(std::to_string(converted.size()) +
                           " tensors converted to the network's dtype (float32, int64 counters)");
  if (!zeroed.empty())
    result.notes.push_back("num_batches_tracked: " + std::to_string(zeroed.size()) +
                           " batch counters set to 0 (the file keeps none)");
  import_state(backend, state, nullptr, tensors, path.string());
  result.loaded = loads.size();
  return result;
}

void print_foreign_weights(std::ostream& log, const std::string& label,
                           const std::filesystem::path& path, const ForeignWeights& weights) {
  log << label << ": " << path.string() << " (" << weights.format << ", names by " << weights.naming
      << ", " << weights.loaded << " tensors)" << std::endl;
  for (const std::string& note : weights.notes) log << "  " << note << std::endl;
}

}  // namespace parity::trainer
