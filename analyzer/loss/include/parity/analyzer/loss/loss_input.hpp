// Reading a loss curve from whatever the user hands `parity loss-compare` or
// `parity-view --loss`: the kind is told by the file's first bytes (an
// SQLite trace, a Chrome-trace JSON that the importer converts, else a text
// log, read with the user's pattern when one is given, else as MindSpore
// loss lines).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "parity/analyzer/loss/loss_curve.hpp"

namespace parity::analyzer {

struct LossInputOptions {
  std::string pattern;         // empty: MindSpore loss lines
  std::string pattern_option;  // where the pattern was given, for errors (--pattern-a)
  std::optional<std::int64_t> steps_per_epoch;
};

// Throws parity::Error naming the file for anything that cannot be read.
LossCurve read_loss_curve(const std::filesystem::path& path, const LossInputOptions& options = {});

}  // namespace parity::analyzer
