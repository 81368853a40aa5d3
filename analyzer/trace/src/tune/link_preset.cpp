#include "parity/analyzer/tune/link_preset.hpp"

#include <array>
#include <string>

#include "parity/core/error.hpp"

namespace parity::analyzer {
namespace {

struct Preset {
  Link link;
  std::string_view name;
  LinkParams params;  // alpha ns; beta ns per byte = 1 / (GB/s)
  std::string_view description;
};

// Alpha: NCCL's own per-step latency for ring/Simple (src/graph/tuning.cc,
// hwLat: NVLink 3.4 us, network 9.6 us), and a kernel TCP round trip for
// Ethernet. Beta: 1 / the bus bandwidth a ring reaches on the link.
constexpr std::array<Preset, 3> kPresets{{
    {Link::kNvlink,
     "nvlink",
     {3'400, 1.0 / 360},
     "NVLink 4 (H100 SXM, 450 GB/s a direction): 360 GB/s bus bandwidth, 3.4 us a step"},
    {Link::kInfiniband,
     "ib",
     {9'600, 1.0 / 45},
     "InfiniBand NDR 400 Gb/s, one NIC a GPU: 45 GB/s bus bandwidth, 9.6 us a step"},
    {Link::kEthernet,
     "ethernet",
     {30'000, 1.0 / 2.6},
     "25 Gb Ethernet over TCP: 2.6 GB/s bus bandwidth, 30 us a step"},
}};

const Preset& find_preset(Link link) {
  for (const Preset& preset : kPresets)
    if (preset.link == link) return preset;
  throw Error("the measured link has no preset constants", "--link measured",
              "use the cost table of the trace");
}

}  // namespace

Link parse_link(std::string_view text) {
  if (text == "measured") return Link::kMeasured;
  for (const Preset& preset : kPresets)
    if (preset.name == text) return preset.link;
  throw Error("unknown link '" + std::string(text) + "'", "--link",
              "use measured (the trace's own AllReduce times), nvlink, ib or ethernet");
}

std::string_view link_name(Link link) {
  return link == Link::kMeasured ? "measured" : find_preset(link).name;
}

LinkParams preset_link(Link link) { return find_preset(link).params; }

std::string_view preset_description(Link link) { return find_preset(link).description; }

}  // namespace parity::analyzer
