// ContentionLoss: how much of backward's compute an AllReduce takes for each
// byte it reduces beside backward, by message size (docs/tune-allreduce.md).
// One rate for messages up to `knee_bytes` and another for larger ones: on
// CPU ranks a message larger than the last-level cache streams through memory
// beside backward's own working set and costs it more a byte. On the
// development VM (32 MB of L3) buckets of up to 27 MB cost backward 0.23 ns a
// byte, buckets from 36 MB 0.56 ns (docs/results.md). Without a knee one rate
// holds for every size.
#pragma once

#include <cmath>

namespace parity::analyzer {

struct ContentionLoss {
  double ns_per_byte = 0;             // messages of up to knee_bytes
  double above_knee_ns_per_byte = 0;  // larger messages
  double knee_bytes = INFINITY;       // infinite: one rate for every size

  static ContentionLoss uniform(double ns_per_byte) { return {ns_per_byte, ns_per_byte}; }
  bool any() const { return ns_per_byte > 0 || (has_knee() && above_knee_ns_per_byte > 0); }
  bool has_knee() const { return std::isfinite(knee_bytes); }
  // The rate for a message of this size.
  double ns_per_byte_at(double message_bytes) const {
    return message_bytes > knee_bytes ? above_knee_ns_per_byte : ns_per_byte;
  }
  // Backward's compute lost to `reduced_bytes` of a message of `message_bytes`.
  double lost_ns(double message_bytes, double reduced_bytes) const {
    return ns_per_byte_at(message_bytes) * reduced_bytes;
  }
};

}  // namespace parity::analyzer
