// The links `parity tune-allreduce --link` knows: the run's measured cost
// table, or one of three preset alpha-beta links whose constants and sources
// are in docs/tune-allreduce.md.
#pragma once

#include <string_view>

#include "parity/analyzer/tune/allreduce_model.hpp"

namespace parity::analyzer {

enum class Link { kMeasured, kNvlink, kInfiniband, kEthernet };

// "measured", "nvlink", "ib", "ethernet"; throws parity::Error for another word.
Link parse_link(std::string_view text);
std::string_view link_name(Link link);

// The preset's alpha (per message between two ranks) and beta (per byte on a
// link: 1 / the bus bandwidth NCCL's tests report); not for kMeasured.
LinkParams preset_link(Link link);
// What the preset stands for, in a few words.
std::string_view preset_description(Link link);

}  // namespace parity::analyzer
