// An AllReduce that straddles the end of backward: part of it ran beside
// backward (at the busy cost), the rest after it (at the idle cost). Such a
// bucket is the one the tuner cares most about, since its end decides the
// step's wait, and leaving it out of the busy table biases that table low:
// of the AllReduces at one size only the quick ones end before backward does.
// With the idle cost known, the two parts give the busy cost by the same rule
// the schedule uses (docs/tune-allreduce.md):
//   during / busy + after / idle = 1   =>   busy = during / (1 - after / idle)
#pragma once

#include <cstdint>
#include <optional>

#include "parity/analyzer/tune/cost_table.hpp"

namespace parity::analyzer {

struct StraddleSample {
  std::uint64_t bytes = 0;
  double during_ns = 0;  // from the AllReduce's start to backward's end
  double after_ns = 0;   // from backward's end to the AllReduce's end
};

// The least share of the work done during backward for a straddler to price
// the busy cost. One whose remainder alone took (nearly) as long as a whole
// idle AllReduce did nothing measurable beside backward (typically it waited
// for the other ranks to arrive); below a quarter, the few percent by which
// idle costs vary from run to run make the share, and busy = during / share,
// unreliable (one bucket of all gradients, started 1 ms before backward ends:
// 31 ms busy against 46 ms idle on the development VM).
inline constexpr double kLeastStraddleShare = 0.25;

// The busy cost the straddler implies, given the idle costs; none when it did
// less than kLeastStraddleShare of its work during backward.
std::optional<AllreduceSample> busy_cost_of(const StraddleSample& sample, const CostTable& idle);

}  // namespace parity::analyzer
