#include "parity/analyzer/compare/nan_scan.hpp"

#include <cmath>
#include <vector>

#include "parity/analyzer/compare/stats_diff.hpp"
#include "parity/core/error.hpp"

namespace parity::analyzer {
namespace {

using importers::DumpRecord;

NonFinite count_nonfinite(const importers::NamedTensor& tensor) {
  const std::vector<double> values = tensor.to_double();
  NonFinite counts;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (std::isfinite(values[i])) continue;
    ++(std::isnan(values[i]) ? counts.nan : counts.inf);
    if (!counts.first_element) counts.first_element = static_cast<std::int64_t>(i);
  }
  return counts;
}

// What the record holds of NaN and Inf; none when it is clean. Statistics
// are taken as they are unless `locate` asks for the first non-finite element
// and the dump holds the array.
std::optional<NonFinite> check(const importers::TensorDump& dump, const DumpRecord& record,
                               bool locate, std::size_t& arrays_read) {
  if (!record.file || (record.stats && (record.stats->finite() || !locate))) {
    const importers::TensorStats stats = record_statistics(dump, record);  // throws without any
    if (stats.finite()) return std::nullopt;
    return NonFinite{stats.nan, stats.inf, std::nullopt};
  }
  const NonFinite found = count_nonfinite(dump.read(record));
  ++arrays_read;
  if (record.stats && (found.nan != record.stats->nan || found.inf != record.stats->inf))
    throw Error("the manifest's statistics say " + std::to_string(record.stats->nan) + " NaN and " +
                    std::to_string(record.stats->inf) + " Inf, the array holds " +
                    std::to_string(found.nan) + " NaN and " + std::to_string(found.inf) + " Inf",
                (dump.dir() / *record.file).string(), "the dump is damaged; write it again");
  if (found.nan == 0 && found.inf == 0) return std::nullopt;
  return found;
}

}  // namespace

NanScan scan_dump(const importers::TensorDump& dump,
                  const std::function<void(std::size_t, std::size_t)>& progress) {
  NanScan scan;
  scan.path = dump.dir().string();
  const std::vector<DumpRecord>& records = dump.records();
  scan.records = records.size();
  for (std::size_t k = 0; k < records.size(); ++k) {
    if (const auto found = check(dump, records[k], !scan.first, scan.arrays_read)) {
      if (scan.first) {
        ++scan.later_nonfinite;
      } else {
        scan.first = records[k];
        scan.counts = *found;
        scan.later_records = records.size() - k - 1;
        if (k > 0) scan.before = records[k - 1];
      }
    }
    if (progress) progress(k + 1, records.size());
  }
  return scan;
}

}  // namespace parity::analyzer
