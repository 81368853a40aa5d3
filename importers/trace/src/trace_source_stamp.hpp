// What identifies the version of a file an imported trace was made from: its
// size, its modification time and the importer's version (a MindSpore
// profiler or Ascend output folder: those of each of its profiler files). A cached import
// whose stamp differs from the file's is made again.
#pragma once

#include <filesystem>
#include <string>

namespace parity::importers::trace {

// Bump when an import of the same file would give different rows.
inline constexpr int kImporterVersion = 2;

std::string source_stamp(const std::filesystem::path& source);

}  // namespace parity::importers::trace
