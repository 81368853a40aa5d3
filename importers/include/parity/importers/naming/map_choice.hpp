// How the tensor names of one file (side A) line up with another's (side B)
// under a name map (name_map.hpp): which B tensor each A tensor is, and which
// have no counterpart by design, after stripping a wrapper prefix
// ("state_dict.", "model.", "module.") on either side where that pairs more
// names. `parity diff` and `parity convert --like` start their pairing here,
// and the trainer loads foreign weights (`--init-weights`, `eval`) through it,
// so both line names up the same way.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "parity/importers/naming/name_map.hpp"
#include "parity/importers/tensor_source.hpp"

namespace parity::importers {

struct MapMatch {
  std::shared_ptr<const NameMap> map;
  std::string prefix_a, prefix_b;  // the wrapper prefixes stripped ("" for none)
  // Per A entry: its name in B's vocabulary (prefix_a stripped, the map
  // applied), or for a name with no counterpart by design, the reason.
  std::vector<std::string> mapped_a;
  std::vector<std::string> names_b;                            // B's names, prefix_b stripped
  std::vector<std::optional<std::size_t>> partner_of_a;        // per A entry: the B entry it names
  std::vector<std::optional<std::string>> lonely_a, lonely_b;  // no counterpart by design: why
  std::size_t equal_shape_pairs = 0;

  // The map's name, and the prefixes stripped: "mindspore-to-torch, A without 'state_dict.'".
  std::string description() const;
};

// Candidate wrapper prefixes of a side: "" and then the dotted prefix that at
// least half of its names share, one and two components deep
// ("state_dict.", "state_dict.module.").
std::vector<std::string> wrapper_prefixes(const std::vector<TensorEntry>& entries);

// Matches A's names to B's under `spec`: "auto" tries every built-in map,
// anything else is a built-in map's name or a rule file (make_name_map).
// Of every map and pair of wrapper prefixes tried, the match with the most
// pairs of equal shapes wins (the first tried on a tie: no prefix, and the
// identity map, come first). Throws parity::Error for an unknown map or a bad
// rule file.
MapMatch match_names(const std::vector<TensorEntry>& a, const std::vector<TensorEntry>& b,
                     const std::string& spec);

}  // namespace parity::importers
