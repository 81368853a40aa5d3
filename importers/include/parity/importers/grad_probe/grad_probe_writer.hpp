// GradProbeWriter: writes a gradient-sign probe (grad_probe_format.hpp) as a
// run produces it: probe.json once, then one record per step appended to
// signs.bin and flushed, so a run that dies leaves every finished step
// readable.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <span>
#include <vector>

#include "parity/importers/grad_probe/grad_probe_format.hpp"

namespace parity::importers {

class GradProbeWriter {
 public:
  // Creates `dir`; one that exists and holds anything is refused.
  GradProbeWriter(std::filesystem::path dir, GradProbeHeader header);
  ~GradProbeWriter();
  GradProbeWriter(const GradProbeWriter&) = delete;
  GradProbeWriter& operator=(const GradProbeWriter&) = delete;

  const GradProbeHeader& header() const { return header_; }

  // The words parameter `index` (in the header's order) packs its signs into
  // for the record being filled (sign_bits.hpp: pack_signs).
  std::span<std::uint64_t> parameter_words(std::size_t index);
  // Appends the record being filled as step `step`.
  void write_step(std::int64_t step);

  std::int64_t steps() const { return steps_; }

 private:
  std::filesystem::path dir_;
  GradProbeHeader header_;
  std::FILE* signs_ = nullptr;
  std::vector<std::uint64_t> record_;  // record_bytes / 8 words
  std::int64_t steps_ = 0;
};

}  // namespace parity::importers
