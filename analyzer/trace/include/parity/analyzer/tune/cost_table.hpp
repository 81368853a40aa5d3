// CostTable: the measured time of one AllReduce per message size, from a
// run's traced AllReduces (docs/tune-allreduce.md). NCCL's and MPI's costs are
// piecewise (protocols and algorithms switch with the size), so the table
// keeps every measured size, at the median of its samples, and interpolates
// linearly between two sizes. Outside the measured sizes it follows the
// table's least-squares line (intercept + slope x bytes, the alpha-beta
// form), continuously and never falling with size: above the largest size it
// rises from the largest measurement along the line's slope; below the
// smallest it falls from the smallest measurement along that slope, but not
// below the line itself, which is capped at the smallest measurement.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace parity::analyzer {

// One traced AllReduce: its message size and time.
struct AllreduceSample {
  std::uint64_t bytes = 0;
  double ns = 0;
};

struct CostLine {
  double intercept_ns = 0, slope_ns_per_byte = 0;
  double at(double bytes) const { return intercept_ns + slope_ns_per_byte * bytes; }
};

class CostTable {
 public:
  struct Entry {
    double bytes = 0, ns = 0;
    std::size_t samples = 0;
  };

  // Throws parity::Error (naming `where`) when the samples hold fewer than two
  // message sizes: one size cannot tell latency from bandwidth.
  CostTable(const std::vector<AllreduceSample>& samples, const std::string& where);

  double at(double bytes) const;  // ns, never negative, never falling with size
  const std::vector<Entry>& entries() const { return entries_; }  // by size
  const CostLine& line() const { return line_; }

 private:
  std::vector<Entry> entries_;
  CostLine line_;
};

// The least-squares line through the entries, kept physical: a negative
// intercept gives the line through the origin, a negative slope a flat line
// at the mean.
CostLine fit_cost_line(std::span<const CostTable::Entry> entries);

}  // namespace parity::analyzer
