// DumpWriter: writes a tensor dump (docs/formats/dump.md) as a run produces
// it. Each record's statistics are computed, its .npy written (unless the
// dump is stats-only) and its manifest line appended and flushed at once, so
// a run that dies mid-step leaves a readable dump up to its last tensor.
#pragma once

#include <cstdio>
#include <filesystem>
#include <span>

#include "parity/importers/dump/dump_manifest.hpp"

namespace parity::importers {

class DumpWriter {
 public:
  // Creates `dir` and dir/tensors. A directory that exists and holds
  // anything is refused (a dump is never mixed with another).
  DumpWriter(std::filesystem::path dir, const DumpHeader& header);
  ~DumpWriter();
  DumpWriter(const DumpWriter&) = delete;
  DumpWriter& operator=(const DumpWriter&) = delete;

  // Fills in index, dtype, file and stats of `record` (its shape must hold
  // values.size() elements) and writes it.
  const DumpRecord& write(DumpRecord record, std::span<const float> values);
  const DumpRecord& write(DumpRecord record, std::span<const double> values);
  const DumpRecord& write(DumpRecord record, std::span<const std::int64_t> values);

  const std::filesystem::path& dir() const { return dir_; }
  std::int64_t records() const { return next_index_; }
  std::uint64_t bytes_written() const { return bytes_written_; }  // of .npy data

 private:
  const DumpRecord& write_bytes(DumpRecord record, std::span<const std::byte> bytes);

  std::filesystem::path dir_;
  bool stats_only_;
  std::FILE* manifest_ = nullptr;
  std::int64_t next_index_ = 0;
  std::uint64_t bytes_written_ = 0;
  DumpRecord last_;
};

}  // namespace parity::importers
