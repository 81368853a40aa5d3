#include "parity/analyzer/tune/allreduce_model.hpp"

#include <bit>

namespace parity::analyzer {

std::string_view algorithm_name(AllreduceAlgorithm algorithm) {
  return algorithm == AllreduceAlgorithm::kRing ? "ring" : "tree";
}

double allreduce_time(AllreduceAlgorithm algorithm, const LinkParams& link, std::int64_t ranks,
                      double bytes) {
  if (ranks < 2) return 0;
  const auto p = static_cast<double>(ranks);
  if (algorithm == AllreduceAlgorithm::kRing)
    return 2 * (p - 1) * link.alpha_ns + 2 * (p - 1) / p * bytes * link.beta_ns_per_byte;
  const auto depth = static_cast<double>(std::bit_width(static_cast<std::uint64_t>(ranks - 1)));
  return 2 * depth * link.alpha_ns + 2 * bytes * link.beta_ns_per_byte;
}

LinkParams link_from_ring_line(const CostLine& line, std::int64_t ranks) {
  const auto p = static_cast<double>(ranks);
  return {line.intercept_ns / (2 * (p - 1)), line.slope_ns_per_byte * p / (2 * (p - 1))};
}

}  // namespace parity::analyzer
