#include "parity/analyzer/tune/straddle_sample.hpp"

namespace parity::analyzer {

std::optional<AllreduceSample> busy_cost_of(const StraddleSample& sample, const CostTable& idle) {
  const double idle_ns = idle.at(double(sample.bytes));
  const double share = idle_ns > 0 ? 1.0 - sample.after_ns / idle_ns : 1.0;
  if (share < kLeastStraddleShare) return std::nullopt;
  return AllreduceSample{sample.bytes, sample.during_ns / share};
}

}  // namespace parity::analyzer
