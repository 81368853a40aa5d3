// The SVG chart of loss-compare's HTML report: both curves over the steps,
// the band B had to stay in (A, or A's repeated runs, widened by the
// tolerances), and the first step where B left it.
#pragma once

#include <string>

#include "parity/analyzer/loss/loss_compare.hpp"

namespace parity::analyzer {

// Empty when neither curve has a finite loss.
std::string loss_chart(const LossComparison& comparison);

}  // namespace parity::analyzer
