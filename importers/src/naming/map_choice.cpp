#include "parity/importers/naming/map_choice.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace parity::importers {
namespace {

std::vector<std::string> stripped_names(const std::vector<TensorEntry>& entries,
                                        const std::string& prefix) {
  std::vector<std::string> names;
  names.reserve(entries.size());
  for (const TensorEntry& entry : entries)
    names.push_back(entry.name.starts_with(prefix) ? entry.name.substr(prefix.size()) : entry.name);
  return names;
}

MapMatch apply_map(std::shared_ptr<const NameMap> map, const std::vector<TensorEntry>& a,
                   const std::string& prefix_a, const std::vector<TensorEntry>& b,
                   const std::string& prefix_b) {
  MapMatch match;
  match.map = std::move(map);
  match.prefix_a = prefix_a;
  match.prefix_b = prefix_b;
  match.names_b = stripped_names(b, prefix_b);
  std::unordered_map<std::string, std::size_t> index_b;
  for (std::size_t j = 0; j < match.names_b.size(); ++j) index_b.emplace(match.names_b[j], j);
  const std::vector<MappedName> mapped = match.map->apply(stripped_names(a, prefix_a));
  match.partner_of_a.resize(a.size());
  match.lonely_a.resize(a.size());
  std::vector<bool> taken(b.size(), false);
  for (std::size_t i = 0; i < a.size(); ++i) {
    match.mapped_a.push_back(mapped[i].name);
    if (mapped[i].kind == MappedName::Kind::kNoCounterpart) {
      match.lonely_a[i] = mapped[i].name;
      continue;
    }
    const auto hit = index_b.find(mapped[i].name);
    if (hit == index_b.end() || taken[hit->second]) continue;
    taken[hit->second] = true;
    match.partner_of_a[i] = hit->second;
    if (a[i].shape == b[hit->second].shape) ++match.equal_shape_pairs;
  }
  match.lonely_b = match.map->lonely_in_b(match.names_b);
  return match;
}

std::vector<std::shared_ptr<const NameMap>> maps_to_try(const std::string& spec) {
  std::vector<std::shared_ptr<const NameMap>> maps;
  if (spec != "auto") {
    maps.push_back(make_name_map(spec));
    return maps;
  }
  for (const std::string& name : builtin_map_names()) maps.push_back(make_builtin_map(name));
  return maps;
}

}  // namespace

std::string MapMatch::description() const {
  std::string text = map->description();
  if (!prefix_a.empty()) text += ", A without '" + prefix_a + "'";
  if (!prefix_b.empty()) text += ", B without '" + prefix_b + "'";
  return text;
}

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
    const auto top =
        std::max_element(counts.begin(), counts.end(),
                         [](const auto& x, const auto& y) { return x.second < y.second; });
    if (top == counts.end() || 2 * top->second < entries.size()) break;
    prefix = top->first;
    prefixes.push_back(prefix);
  }
  return prefixes;
}

MapMatch match_names(const std::vector<TensorEntry>& a, const std::vector<TensorEntry>& b,
                     const std::string& spec) {
  const auto maps = maps_to_try(spec);
  std::optional<MapMatch> best;
  for (const std::string& prefix_a : wrapper_prefixes(a))
    for (const std::string& prefix_b : wrapper_prefixes(b))
      for (const auto& map : maps) {
        MapMatch match = apply_map(map, a, prefix_a, b, prefix_b);
        if (!best || match.equal_shape_pairs > best->equal_shape_pairs) best = std::move(match);
      }
  return std::move(*best);
}

}  // namespace parity::importers
