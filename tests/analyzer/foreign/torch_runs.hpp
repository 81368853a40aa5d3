// What the foreign-trace tests share: profiling with torch_profile.py and
// running `parity` for its JSON output.
#pragma once

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "process.hpp"
#include "temp_dir.hpp"

namespace torch_runs {

namespace fs = std::filesystem;
using nlohmann::json;

// Profiles with torch_profile.py; returns the path of its export.
inline fs::path torch_trace(const TempDir& dir, const std::string& name,
                            const std::vector<std::string>& options = {}) {
  const fs::path out = dir / name;
  std::vector<std::string> argv{PARITY_PYTHON, PARITY_TORCH_PROFILE, out.string()};
  argv.insert(argv.end(), options.begin(), options.end());
  const ProcessResult made = run_process(argv);
  INFO(made.err);
  REQUIRE(made.exit_code == 0);
  return out;
}

inline json read_json(const fs::path& path) {
  std::ifstream in(path);
  REQUIRE(in);
  return json::parse(in);
}

inline json parity_json(const std::vector<std::string>& args) {
  std::vector<std::string> argv{PARITY_CLI};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"--format", "json"});
  const ProcessResult run = run_process(argv);
  INFO(run.err);
  REQUIRE(run.exit_code <= 1);
  return json::parse(run.out);
}

}  // namespace torch_runs
