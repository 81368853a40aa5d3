// `parity nan-scan`: the first record of a tensor dump, in execution order,
// holding a NaN or an infinity; the op that produced it from clean input (the
// record executed just before it is clean); and how many later records are
// non-finite. Records are judged by their manifest statistics where they have
// them (a clean record is not read); the first non-finite one is read when
// the dump holds its array, to locate its first NaN or Inf and to check the
// statistics against it; a record without statistics is read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "parity/importers/dump/tensor_dump.hpp"

namespace parity::analyzer {

struct NonFinite {
  std::int64_t nan = 0, inf = 0;
  // Flat (C-order) index of the first NaN or Inf; none in a stats-only record.
  std::optional<std::int64_t> first_element;
};

struct NanScan {
  std::string path;
  std::size_t records = 0;                      // in the dump
  std::optional<importers::DumpRecord> first;   // the first record holding NaN or Inf
  NonFinite counts;                             // of `first`
  std::optional<importers::DumpRecord> before;  // the clean record executed just before `first`
  std::size_t later_records = 0;                // records after `first`
  std::size_t later_nonfinite = 0;              // of them, those holding NaN or Inf
  std::size_t arrays_read = 0;

  bool found() const { return first.has_value(); }
};

// Throws parity::Error for a record that cannot be read, one with neither
// values nor statistics, and statistics that disagree with the array.
NanScan scan_dump(const importers::TensorDump& dump,
                  const std::function<void(std::size_t done, std::size_t total)>& progress = {});

}  // namespace parity::analyzer
