// Two THOR steps of a small network (two convolutions, the second with
// MindSpore's asymmetric "same" padding and stride 2, and a 130-class
// classifier, so that A and G both split into blocks of 128) on the CPU
// backend, against thor_peer.py's float64 PyTorch reference: the inverses
// after the collecting step 0, and every parameter after step 0 and after
// step 1, which reuses step 0's inverses on a new batch.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "parity/trainer/optim/thor.hpp"
#include "parity/importers/safetensors.hpp"
#include "process.hpp"
#include "small_net.hpp"
#include "temp_dir.hpp"

using namespace parity::trainer;
using namespace thor_test;
using parity::importers::NamedTensor;
using parity::importers::SafetensorsFile;

namespace {

constexpr std::int64_t kBatch = 4;

// Runs thor_peer.py on `inputs`; fails the test, with its stderr, when it fails.
SafetensorsFile run_thor_peer(const TempDir& dir, const std::vector<NamedTensor>& inputs) {
  const auto in = dir / "thor_in.safetensors", out = dir / "thor_out.safetensors";
  parity::importers::write_safetensors(in, inputs);
  const ProcessResult result = run_process({PARITY_PYTHON, PARITY_THOR_PEER, in.string(), out.string()});
  INFO("thor_peer.py: " << result.err);
  REQUIRE(result.exit_code == 0);
  return SafetensorsFile::open(out);
}

std::vector<double> as_doubles(const SafetensorsFile& file, const std::string& name) {
  return file.read(name).values<double>();
}

// The largest difference, relative to the reference's largest magnitude.
double relative_error(std::span<const double> expected, std::span<const float> got) {
  double worst = 0.0, largest = 0.0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    worst = std::max(worst, std::abs(expected[i] - double(got[i])));
    largest = std::max(largest, std::abs(expected[i]));
  }
  return worst / largest;
}

}  // namespace

TEST_CASE("two THOR steps of a small network match a float64 PyTorch reference", "[unit]") {
  SmallNet net(kBatch);
  TempDir dir;
  std::vector<NamedTensor> inputs;
  std::uint32_t seed = 10;
  const std::vector<std::vector<float>> initial = net.initialise(seed);
  seed += 4;
  for (std::size_t i = 0; i < initial.size(); ++i)
    inputs.push_back(NamedTensor::from_values<float>(net.state.parameters[i].name,
                                                     net.state.parameters[i].shape, initial[i]));
  std::vector<std::vector<float>> batches;
  std::vector<std::vector<std::int32_t>> labels;
  for (int step = 0; step < 2; ++step) {
    batches.push_back(normal_floats(kBatch * 3 * 6 * 6, seed++, 1.0f));
    labels.push_back({3, 77, 129, std::int32_t(step)});
    inputs.push_back(NamedTensor::from_values<float>("x" + std::to_string(step), {kBatch, 3, 6, 6},
                                                     batches.back()));
    const std::vector<std::int64_t> wide(labels.back().begin(), labels.back().end());
    inputs.push_back(NamedTensor::from_values<std::int64_t>("labels" + std::to_string(step), {kBatch}, wide));
  }
  const std::vector<double> options{ThorSteps::kLr, ThorSteps::kMomentum, ThorSteps::kWeightDecay,
                                    ThorSteps::kDamping, ThorSteps::kLossScale};
  inputs.push_back(NamedTensor::from_values<double>("options", {5}, options));

  ThorSteps steps(net);
  ThorPreconditioner& thor = steps.thor;

  std::vector<std::vector<std::vector<float>>> after(2);
  for (int step = 0; step < 2; ++step) {
    CHECK(steps.step(step, batches[step], labels[step]) == (step == 0));
    for (const Parameter& p : net.state.parameters) after[step].push_back(net.backend->to_host(p.tensors->value));
  }
  const SafetensorsFile expected = run_thor_peer(dir, inputs);

  SECTION("the inverses of step 0") {
    REQUIRE(thor.layers() == 3);
    for (const NamedTensor& inverse : thor.export_state()) {
      // "optimizer.thor.conv1.weight.a_inverse" -> "conv1.a_inverse"
      const std::string_view name = inverse.name;
      const std::string_view rest = name.substr(std::string_view("optimizer.thor.").size());
      const std::string layer(rest.substr(0, rest.find('.')));
      const std::string which(name.substr(name.rfind('.') + 1));
      const std::vector<double> reference = as_doubles(expected, layer + "." + which);
      const auto dim = static_cast<std::int64_t>(std::sqrt(double(reference.size())));
      // Our blocks, laid out as the reference's dense matrix (zero off the blocks).
      std::vector<float> ours(reference.size(), 0.0f);
      const std::vector<float> blocks = inverse.values<float>();
      std::size_t offset = 0;
      for (std::int64_t start = 0; start < dim; start += 128) {
        const std::int64_t size = std::min<std::int64_t>(128, dim - start);
        for (std::int64_t i = 0; i < size; ++i)
          for (std::int64_t j = 0; j < size; ++j) ours[(start + i) * dim + start + j] = blocks[offset++];
      }
      REQUIRE(offset == blocks.size());
      const double error = relative_error(reference, ours);
      INFO(inverse.name << ": relative error " << error);
      CHECK(error < 1e-5);
    }
  }
  SECTION("the parameters after each step") {
    for (int step = 0; step < 2; ++step)
      for (std::size_t i = 0; i < net.state.parameters.size(); ++i) {
        const Parameter& p = net.state.parameters[i];
        const std::vector<double> reference = as_doubles(expected, "s" + std::to_string(step) + "." + p.name);
        // Judged on the update (after - before), which is what THOR changes.
        const std::vector<float>& before = initial[i];
        std::vector<double> ref_update(reference.size());
        std::vector<float> our_update(reference.size());
        for (std::size_t k = 0; k < reference.size(); ++k) {
          ref_update[k] = reference[k] - before[k];
          our_update[k] = after[step][i][k] - before[k];
        }
        const double error = relative_error(ref_update, our_update);
        INFO("step " << step << " " << p.name << ": relative error of the update " << error);
        CHECK(error < 1e-4);
      }
  }
}
