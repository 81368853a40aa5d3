// TensorDump: a dump directory opened for reading, either with a manifest
// (docs/formats/dump.md) or a plain directory of .npy files (then ordered by
// file name in natural order, named after the file without ".npy"). Opening
// reads the manifest or the .npy headers only; read() loads one tensor.
#pragma once

#include <filesystem>
#include <vector>

#include "parity/importers/dump/dump_manifest.hpp"
#include "parity/importers/named_tensor.hpp"

namespace parity::importers {

class TensorDump {
 public:
  // Throws parity::Error naming the directory, or the manifest line, at fault.
  static TensorDump open(const std::filesystem::path& dir);

  const std::filesystem::path& dir() const { return dir_; }
  bool has_manifest() const { return has_manifest_; }
  const DumpHeader& header() const { return header_; }
  const std::vector<DumpRecord>& records() const { return records_; }  // execution order

  // The record's array; its dtype and shape must be the record's. Throws
  // when the record has no file (stats-only) or the file is missing or bad.
  NamedTensor read(const DumpRecord& record) const;

 private:
  std::filesystem::path dir_;
  bool has_manifest_ = false;
  DumpHeader header_;
  std::vector<DumpRecord> records_;
};

// "a2" < "a10": digit runs compare as numbers.
bool natural_less(std::string_view a, std::string_view b);

}  // namespace parity::importers
