// Runs tests/support/resnet_checkpoints.py (a torchvision ResNet under
// PyTorch's or MindSpore's names, see its docstring) for the suites that
// define PARITY_PYTHON and PARITY_RESNET_CHECKPOINTS, and REQUIREs that it
// succeeds.
#pragma once

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "process.hpp"

// dir/name, written by the peer with `args` ("--arch", "resnet18", ...).
inline std::filesystem::path resnet_checkpoint(const std::filesystem::path& dir,
                                               const std::string& name,
                                               const std::vector<std::string>& args) {
  std::vector<std::string> command{PARITY_PYTHON, PARITY_RESNET_CHECKPOINTS, dir.string(), "--name",
                                   name};
  command.insert(command.end(), args.begin(), args.end());
  const auto result = run_process(command);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  return dir / name;
}
