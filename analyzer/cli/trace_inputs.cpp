#include "trace_inputs.hpp"

#include <filesystem>

#include "parity/importers/trace/trace_import.hpp"
#include "progress.hpp"

namespace parity::cli {

std::string readable_trace(const std::string& path) {
  ProgressLine progress("importing " + std::filesystem::path(path).filename().string());
  importers::trace::ImportOptions options;
  options.progress = [&progress](std::uint64_t done, std::uint64_t total) {
    progress.update(static_cast<std::size_t>(done), static_cast<std::size_t>(total));
  };
  return importers::trace::readable_trace(path, options).string();
}

std::vector<std::string> readable_traces(const std::vector<std::string>& paths) {
  std::vector<std::string> readable;
  readable.reserve(paths.size());
  for (const std::string& path : paths) readable.push_back(readable_trace(path));
  return readable;
}

}  // namespace parity::cli
