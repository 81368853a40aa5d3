#include "parity/analyzer/tune/cost_table.hpp"

#include <algorithm>
#include <map>

#include "parity/analyzer/profile/distribution.hpp"
#include "parity/core/error.hpp"

namespace parity::analyzer {

CostLine fit_cost_line(std::span<const CostTable::Entry> entries) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const CostTable::Entry& entry : entries) {
    sx += entry.bytes;
    sy += entry.ns;
    sxx += entry.bytes * entry.bytes;
    sxy += entry.bytes * entry.ns;
  }
  const auto n = static_cast<double>(entries.size());
  const double spread = n * sxx - sx * sx;
  CostLine line;
  line.slope_ns_per_byte = spread > 0 ? (n * sxy - sx * sy) / spread : 0;
  line.intercept_ns = (sy - line.slope_ns_per_byte * sx) / n;
  if (line.slope_ns_per_byte < 0) return {sy / n, 0};
  if (line.intercept_ns < 0) return {0, sxx > 0 ? sxy / sxx : 0};
  return line;
}

CostTable::CostTable(const std::vector<AllreduceSample>& samples, const std::string& where) {
  std::map<std::uint64_t, std::vector<double>> by_size;
  for (const AllreduceSample& sample : samples) by_size[sample.bytes].push_back(sample.ns);
  if (by_size.size() < 2)
    throw Error("the traced AllReduces have " + std::to_string(by_size.size()) + " message size" +
                    (by_size.size() == 1 ? "" : "s") +
                    ": the cost of other sizes cannot be measured from them",
                where,
                "record with a split whose buckets differ in size (e.g. --set "
                "allreduce_split=mb:25, or none), or pass --link nvlink, ib or ethernet");
  for (auto& [bytes, times] : by_size) {
    const std::size_t count = times.size();
    entries_.push_back({double(bytes), distribution_of(times).median_ns, count});
  }
  line_ = fit_cost_line(entries_);
}

double CostTable::at(double bytes) const {
  const Entry& first = entries_.front();
  const Entry& last = entries_.back();
  if (bytes <= first.bytes)
    return std::max(first.ns - line_.slope_ns_per_byte * (first.bytes - bytes),
                    std::min(line_.at(bytes), first.ns));
  if (bytes >= last.bytes) return last.ns + line_.slope_ns_per_byte * (bytes - last.bytes);
  const auto upper = std::upper_bound(entries_.begin(), entries_.end(), bytes,
                                      [](double b, const Entry& entry) { return b < entry.bytes; });
  const Entry& lower = *(upper - 1);
  const double t = (bytes - lower.bytes) / (upper->bytes - lower.bytes);
  return lower.ns + t * (upper->ns - lower.ns);
}

}  // namespace parity::analyzer
