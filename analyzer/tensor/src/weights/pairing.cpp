#include "parity/analyzer/weights/pairing.hpp"

#include <algorithm>

#include "parity/analyzer/weights/structural_pairing.hpp"
#include "parity/importers/naming/map_choice.hpp"

namespace parity::analyzer {
namespace {

using importers::MapMatch;
using importers::TensorEntry;

class PairingBuilder {
 public:
  PairingBuilder(const std::vector<TensorEntry>& a, const std::vector<TensorEntry>& b)
      : a_(a),
        b_(b),
        paired_a_(a.size(), false),
        paired_b_(b.size(), false),
        lonely_a_(a.size()),
        lonely_b_(b.size()) {}

  void take_map(const MapMatch& result, const std::string& how) {
    for (std::size_t i = 0; i < a_.size(); ++i) {
      if (result.partner_of_a[i]) add({i, *result.partner_of_a[i], 1.0, how, std::nullopt});
      if (result.lonely_a[i]) lonely_a_[i] = result.lonely_a[i];
    }
    for (std::size_t j = 0; j < b_.size(); ++j)
      if (result.lonely_b[j]) lonely_b_[j] = result.lonely_b[j];
  }

  // Structural pairing of what is still unpaired; A's names as the map made them.
  void take_structure(const std::vector<std::string>& names_a,
                      const std::vector<std::string>& names_b) {
    std::vector<ParameterShape> left, right;
    std::vector<std::size_t> left_index, right_index;
    for (std::size_t i = 0; i < a_.size(); ++i)
      if (!paired_a_[i] && !lonely_a_[i]) {
        left.push_back({names_a[i], a_[i].shape});
        left_index.push_back(i);
      }
    for (std::size_t j = 0; j < b_.size(); ++j)
      if (!paired_b_[j] && !lonely_b_[j]) {
        right.push_back({names_b[j], b_[j].shape});
        right_index.push_back(j);
      }
    for (const StructuralPair& pair : pair_by_structure(left, right))
      add({left_index[pair.a], right_index[pair.b], pair.confidence, "structure",
           pair.rival_b ? std::optional(right_index[*pair.rival_b]) : std::nullopt});
  }

  // PyTorch's BatchNorm batch counter, left over when the other side has none.
  void mark_batch_counters() {
    mark_batch_counters(a_, b_, paired_a_, lonely_a_);
    mark_batch_counters(b_, a_, paired_b_, lonely_b_);
  }

  Pairing finish(std::string method) {
    Pairing pairing;
    pairing.method = std::move(method);
    pairing.pairs = std::move(pairs_);
    std::sort(pairing.pairs.begin(), pairing.pairs.end(),
              [](const auto& x, const auto& y) { return x.a < y.a; });
    sort_unpaired(paired_a_, lonely_a_, pairing.only_a, pairing.no_counterpart_a);
    sort_unpaired(paired_b_, lonely_b_, pairing.only_b, pairing.no_counterpart_b);
    return pairing;
  }

 private:
  static void mark_batch_counters(const std::vector<TensorEntry>& side,
                                  const std::vector<TensorEntry>& other,
                                  const std::vector<bool>& paired,
                                  std::vector<std::optional<std::string>>& lonely) {
    const auto is_counter = [](const TensorEntry& e) {
      return e.name.ends_with("num_batches_tracked");
    };
    if (std::any_of(other.begin(), other.end(), is_counter)) return;
    for (std::size_t i = 0; i < side.size(); ++i)
      if (!paired[i] && !lonely[i] && is_counter(side[i]))
        lonely[i] = "a PyTorch BatchNorm batch counter; the other file keeps none";
  }

  static void sort_unpaired(const std::vector<bool>& paired,
                            const std::vector<std::optional<std::string>>& lonely,
                            std::vector<std::size_t>& only, std::vector<Lonely>& no_counterpart) {
    for (std::size_t i = 0; i < paired.size(); ++i) {
      if (paired[i]) continue;
      if (lonely[i])
        no_counterpart.push_back({i, *lonely[i]});
      else
        only.push_back(i);
    }
  }

  void add(ParameterPair pair) {
    paired_a_[pair.a] = paired_b_[pair.b] = true;
    lonely_a_[pair.a].reset();
    lonely_b_[pair.b].reset();
    pairs_.push_back(std::move(pair));
  }

  const std::vector<TensorEntry>& a_;
  const std::vector<TensorEntry>& b_;
  std::vector<bool> paired_a_, paired_b_;
  std::vector<std::optional<std::string>> lonely_a_, lonely_b_;
  std::vector<ParameterPair> pairs_;
};

std::vector<std::string> plain_names(const std::vector<TensorEntry>& entries) {
  std::vector<std::string> names;
  names.reserve(entries.size());
  for (const TensorEntry& entry : entries) names.push_back(entry.name);
  return names;
}

Pairing pair_entries(const std::vector<TensorEntry>& a, const std::vector<TensorEntry>& b,
                     const std::string& map) {
  PairingBuilder builder(a, b);
  if (map == "structure") {
    builder.take_structure(plain_names(a), plain_names(b));
    builder.mark_batch_counters();
    return builder.finish("structure");
  }
  const MapMatch match = importers::match_names(a, b, map);
  builder.take_map(match, match.map->description());
  if (map != "auto") return builder.finish(match.description());
  builder.take_structure(match.mapped_a, match.names_b);
  builder.mark_batch_counters();
  return builder.finish("auto: " + match.description() + ", then structure");
}

// The entries of one side that are not training state, and where each came from.
struct ModelEntries {
  std::vector<TensorEntry> entries;
  std::vector<std::size_t> original;
  std::vector<SetAside> set_aside;
};

ModelEntries model_entries(const std::vector<TensorEntry>& entries) {
  ModelEntries out;
  const auto states = importers::classify_training_state(entries);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (states[i]) {
      out.set_aside.push_back({i, *states[i]});
    } else {
      out.entries.push_back(entries[i]);
      out.original.push_back(i);
    }
  }
  return out;
}

// Renumbers a pairing of the model entries into the files' own indices.
void renumber(Pairing& pairing, const ModelEntries& a, const ModelEntries& b) {
  for (ParameterPair& pair : pairing.pairs) {
    pair.a = a.original[pair.a];
    pair.b = b.original[pair.b];
    if (pair.rival_b) pair.rival_b = b.original[*pair.rival_b];
  }
  for (std::size_t& i : pairing.only_a) i = a.original[i];
  for (std::size_t& j : pairing.only_b) j = b.original[j];
  for (Lonely& lonely : pairing.no_counterpart_a) lonely.index = a.original[lonely.index];
  for (Lonely& lonely : pairing.no_counterpart_b) lonely.index = b.original[lonely.index];
  pairing.training_state_a = a.set_aside;
  pairing.training_state_b = b.set_aside;
}

}  // namespace

std::size_t Pairing::ambiguous_count() const {
  return static_cast<std::size_t>(std::count_if(
      pairs.begin(), pairs.end(), [](const auto& pair) { return pair.rival_b.has_value(); }));
}

Pairing pair_tensors(const std::vector<TensorEntry>& a, const std::vector<TensorEntry>& b,
                     const std::string& map, bool set_aside_training_state) {
  if (!set_aside_training_state) return pair_entries(a, b, map);
  const ModelEntries model_a = model_entries(a), model_b = model_entries(b);
  Pairing pairing = pair_entries(model_a.entries, model_b.entries, map);
  renumber(pairing, model_a, model_b);
  return pairing;
}

}  // namespace parity::analyzer
