// Recorder options for a test's trace database at `path`.
#pragma once

#include <filesystem>
#include <string>

#include "parity/profiler/recorder.hpp"

inline parity::profiler::RecorderOptions recorder_options(const std::filesystem::path& path,
                                                          std::string command_line) {
  parity::profiler::RecorderOptions options;
  options.path = path;
  options.command_line = std::move(command_line);
  return options;
}
