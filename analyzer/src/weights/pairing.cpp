#include "parity/analyzer/weights/pairing.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "parity/analyzer/weights/name_map.hpp"
#include "parity/analyzer/weights/structural_pairing.hpp"

namespace parity::analyzer {
namespace {

using importers::TensorEntry;

// A wrapper prefix shared by at least half of a side's names ("state_dict.",
// "model.", "module.", "state_dict.module."), candidates longest last.
std::vector<std::string> wrapper_prefixes(const std::vector<TensorEntry>& entries) {
  std::vector<std::string> prefixes{""};
  std::string prefix;
  for (int depth = 0; depth < 2; ++depth) {
    std::map<std::string, std::size_t> counts;
    for (const TensorEntry& entry : entries) {
      if (!entry.name.starts_with(prefix)) continue;
      const auto dot = entry.name.find('.', prefix.size());
      if (dot != std::string::npos) ++counts[entry.name.substr(0, dot + 1)];
    }
    const auto top = std::max_element(counts.begin(), counts.end(),
                                      [](const auto& x, const auto& y) { return x.second < y.second; });
    if (top == counts.end() || 2 * top->second < entries.size()) break;
    prefix = top->first;
    prefixes.push_back(prefix);
  }
  return prefixes;
}

std::vector<std::string> stripped_names(const std::vector<TensorEntry>& entries,
                                        const std::string& prefix) {
  std::vector<std::string> names;
  names.reserve(entries.size());
  for (const TensorEntry& entry : entries)
    names.push_back(entry.name.starts_with(prefix) ? entry.name.substr(prefix.size()) : entry.name);
  return names;
}

// Pairing by one map over names with their wrapper prefixes stripped.
struct MapResult {
  std::vector<std::optional<std::size_t>> partner_of_a;  // index into B
  std::vector<std::optional<std::string>> lonely_a, lonely_b;
  std::vector<std::string> mapped_a;  // A's names in B's vocabulary
  std::size_t equal_shape_pairs = 0;
};

MapResult apply_map(const NameMap& map, const std::vector<TensorEntry>& a,
                    const std::vector<std::string>& names_a, const std::vector<TensorEntry>& b,
                    const std::vector<std::string>& names_b) {
  MapResult result;
  std::unordered_map<std::string, std::size_t> index_b;
  for (std::size_t j = 0; j < names_b.size(); ++j) index_b.emplace(names_b[j], j);
  const std::vector<MappedName> mapped = map.apply(names_a);
  result.partner_of_a.resize(a.size());
  result.lonely_a.resize(a.size());
  std::vector<bool> taken(b.size(), false);
  for (std::size_t i = 0; i < a.size(); ++i) {
    result.mapped_a.push_back(mapped[i].name);
    if (mapped[i].kind == MappedName::Kind::kNoCounterpart) {
      result.lonely_a[i] = mapped[i].name;
      continue;
    }
    const auto hit = index_b.find(mapped[i].name);
    if (hit == index_b.end() || taken[hit->second]) continue;
    taken[hit->second] = true;
    result.partner_of_a[i] = hit->second;
    if (a[i].shape == b[hit->second].shape) ++result.equal_shape_pairs;
  }
  result.lonely_b = map.lonely_in_b(names_b);
  return result;
}

struct Choice {
  std::shared_ptr<const NameMap> map;
  std::string prefix_a, prefix_b;
  MapResult result;
};

Choice best_builtin_choice(const std::vector<TensorEntry>& a, const std::vector<TensorEntry>& b) {
  Choice best;
  for (const std::string& prefix_a : wrapper_prefixes(a))
    for (const std::string& prefix_b : wrapper_prefixes(b)) {
      const auto names_a = stripped_names(a, prefix_a), names_b = stripped_names(b, prefix_b);
      for (const std::string& name : builtin_map_names()) {
        auto map = make_builtin_map(name);
        MapResult result = apply_map(*map, a, names_a, b, names_b);
        if (!best.map || result.equal_shape_pairs > best.result.equal_shape_pairs)
          best = {std::move(map), prefix_a, prefix_b, std::move(result)};
      }
    }
  return best;
}

std::string describe(const Choice& choice) {
  std::string text = choice.map->description();
  if (!choice.prefix_a.empty()) text += ", A without '" + choice.prefix_a + "'";
  if (!choice.prefix_b.empty()) text += ", B without '" + choice.prefix_b + "'";
  return text;
}

class PairingBuilder {
 public:
  PairingBuilder(const std::vector<TensorEntry>& a, const std::vector<TensorEntry>& b)
      : a_(a), b_(b), paired_a_(a.size(), false), paired_b_(b.size(), false),
        lonely_a_(a.size()), lonely_b_(b.size()) {}

  void take_map(const MapResult& result, const std::string& how) {
    for (std::size_t i = 0; i < a_.size(); ++i) {
      if (result.partner_of_a[i]) add({i, *result.partner_of_a[i], 1.0, how, std::nullopt});
      if (result.lonely_a[i]) lonely_a_[i] = result.lonely_a[i];
    }
    for (std::size_t j = 0; j < b_.size(); ++j)
      if (result.lonely_b[j]) lonely_b_[j] = result.lonely_b[j];
  }

  // Structural pairing of what is still unpaired; A's names as the map made them.
  void take_structure(const std::vector<std::string>& names_a, const std::vector<std::string>& names_b) {
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
  static void mark_batch_counters(const std::vector<TensorEntry>& side, const std::vector<TensorEntry>& other,
                                  const std::vector<bool>& paired,
                                  std::vector<std::optional<std::string>>& lonely) {
    const auto is_counter = [](const TensorEntry& e) { return e.name.ends_with("num_batches_tracked"); };
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
  return stripped_names(entries, "");
}

}  // namespace

std::size_t Pairing::ambiguous_count() const {
  return static_cast<std::size_t>(
      std::count_if(pairs.begin(), pairs.end(), [](const auto& pair) { return pair.rival_b.has_value(); }));
}

Pairing pair_tensors(const std::vector<TensorEntry>& a, const std::vector<TensorEntry>& b,
                     const std::string& map) {
  PairingBuilder builder(a, b);
  if (map == "structure") {
    builder.take_structure(plain_names(a), plain_names(b));
    builder.mark_batch_counters();
    return builder.finish("structure");
  }
  if (map == "auto") {
    const Choice choice = best_builtin_choice(a, b);
    builder.take_map(choice.result, choice.map->description());
    builder.take_structure(choice.result.mapped_a, stripped_names(b, choice.prefix_b));
    builder.mark_batch_counters();
    return builder.finish("auto: " + describe(choice) + ", then structure");
  }
  const std::shared_ptr<const NameMap> name_map = make_name_map(map);
  Choice choice;
  for (const std::string& prefix_a : wrapper_prefixes(a))
    for (const std::string& prefix_b : wrapper_prefixes(b)) {
      MapResult result = apply_map(*name_map, a, stripped_names(a, prefix_a), b,
                                   stripped_names(b, prefix_b));
      if (!choice.map || result.equal_shape_pairs > choice.result.equal_shape_pairs)
        choice = {name_map, prefix_a, prefix_b, std::move(result)};
    }
  builder.take_map(choice.result, name_map->description());
  return builder.finish(describe(choice));
}

}  // namespace parity::analyzer
