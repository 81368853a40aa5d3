// Runs train_peer.py (the PyTorch side of these tests) on tensors written to
// a safetensors file and returns what it wrote back.
#pragma once

#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "parity/importers/safetensors.hpp"
#include "process.hpp"
#include "temp_dir.hpp"

namespace train_test {

using parity::importers::NamedTensor;
using parity::importers::SafetensorsFile;

// `mode` is "loss" or "sgd" (see train_peer.py). Fails the test when the
// script fails, with its stderr.
inline SafetensorsFile run_peer(const TempDir& dir, const std::string& mode,
                                const std::vector<NamedTensor>& inputs) {
  const auto in = dir / (mode + "_in.safetensors");
  const auto out = dir / (mode + "_out.safetensors");
  parity::importers::write_safetensors(in, inputs);
  const ProcessResult result =
      run_process({PARITY_PYTHON, PARITY_TRAIN_PEER, mode, in.string(), out.string()});
  INFO("train_peer.py " << mode << ": " << result.err);
  REQUIRE(result.exit_code == 0);
  return SafetensorsFile::open(out);
}

inline std::vector<float> uniform_floats(std::size_t count, std::uint32_t seed, float low,
                                         float high) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> uniform(low, high);
  std::vector<float> values(count);
  for (float& v : values) v = uniform(engine);
  return values;
}

inline std::vector<float> normal_floats(std::size_t count, std::uint32_t seed, float stddev) {
  std::mt19937 engine(seed);
  std::normal_distribution<float> normal(0.f, stddev);
  std::vector<float> values(count);
  for (float& v : values) v = normal(engine);
  return values;
}

}  // namespace train_test
