// GradProbeReader: a gradient-sign probe directory (grad_probe_format.hpp)
// opened for reading, its records read one after another. Opening checks the
// header and that signs.bin holds whole records; reading checks each
// record's magic, parameter count and that steps rise.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <span>
#include <vector>

#include "parity/importers/grad_probe/grad_probe_format.hpp"

namespace parity::importers {

class GradProbeReader {
 public:
  // Throws parity::Error naming the directory or file at fault.
  explicit GradProbeReader(const std::filesystem::path& dir);

  const std::filesystem::path& dir() const { return dir_; }
  const GradProbeHeader& header() const { return header_; }
  std::int64_t records() const { return records_; }

  // Reads the next record; false after the last. Throws parity::Error naming
  // the byte offset of a record that is not one.
  bool next();
  std::int64_t step() const { return step_; }  // of the record last read
  // Parameter `index`'s sign words (header order) in the record last read.
  std::span<const std::uint64_t> parameter_words(std::size_t index) const;

 private:
  std::filesystem::path dir_, signs_path_;
  GradProbeHeader header_;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> signs_{nullptr, &std::fclose};
  std::int64_t records_ = 0, read_ = 0;
  std::int64_t step_ = -1;
  std::vector<std::uint64_t> record_;
};

}  // namespace parity::importers
