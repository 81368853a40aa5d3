// The whole ResNet against torchvision's, from the same weights: names and
// shapes of the state_dict, training and evaluation forward, every
// parameter's gradient, and the running statistics after a training forward.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>

#include "gradient_check.hpp"
#include "parity/importers/safetensors.hpp"
#include "parity/trainer/backend/cpu_backend.hpp"
#include "parity/trainer/nn/resnet.hpp"
#include "parity/trainer/train/state_tensors.hpp"
#include "process.hpp"
#include "temp_dir.hpp"

using namespace parity::trainer;
using parity::importers::NamedTensor;

namespace {

// Largest |a - b| over the largest |b|.
double relative_difference(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  double scale = 1e-6, worst = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    scale = std::max(scale, double(std::abs(b[i])));
    worst = std::max(worst, double(std::abs(a[i] - b[i])));
  }
  return worst / scale;
}

// |a - b| / |b| in the L2 norm.
double l2_relative(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  double difference = 0.0, norm = 1e-30;
  for (std::size_t i = 0; i < a.size(); ++i) {
    difference += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
    norm += double(b[i]) * b[i];
  }
  return std::sqrt(difference / norm);
}

void compare_with_torchvision(int depth, Stem stem, const Dims& input, std::int64_t classes) {
  auto backend = make_cpu_backend({});
  Tracing tracing;
  ResNet model(*backend, {depth, classes, false, input, 7, stem, {}}, tracing);
  TempDir dir;
  const auto state = export_state(*backend, model.state(), nullptr);
  parity::importers::write_safetensors(dir / "state.safetensors", state);

  const auto x = random_floats(std::size_t(element_count(input)), 1);
  const auto r = random_floats(std::size_t(input[0] * classes), 2);
  const std::vector<NamedTensor> inputs{
      NamedTensor::from_values<float>("x", input, x),
      NamedTensor::from_values<float>("r", {input[0], classes}, r)};
  parity::importers::write_safetensors(dir / "inputs.safetensors", inputs);
  const bool small = uses_small_image_stem(input, stem);
  const auto result = run_process({"/usr/bin/python3", PARITY_TORCHVISION_PEER,
                                   (dir / "state.safetensors").string(),
                                   (dir / "inputs.safetensors").string(), (dir / "out.safetensors").string(),
                                   std::to_string(depth), small ? "small" : "imagenet",
                                   std::to_string(classes)});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const auto torch = parity::importers::SafetensorsFile::open(dir / "out.safetensors");
  const auto expect = [&](const std::string& name) { return torch.read(name).values<float>(); };

  const Tensor logits = model.forward(backend->from_host(input, x), Mode::kTrain);
  CHECK(relative_difference(backend->to_host(logits), expect("logits.train")) < 1e-4);
  model.backward(backend->from_host({input[0], classes}, r));
  // Gradients against PyTorch's float64 ones, in the L2 norm. A ReLU input
  // within float32 rounding of zero can land on either side in two correct
  // float32 implementations (PyTorch's own float32 run does it too), which
  // changes every gradient upstream of it by up to a few percent. So: the
  // classifier, upstream of no ReLU, must agree to float32 rounding; every
  // other parameter within 5%; wiring or kernel errors are far larger.
  for (const Parameter& p : model.state().parameters) {
    const auto exact = expect("grad64." + p.name);
    const double ours = l2_relative(backend->to_host(p.tensors->grad), exact);
    INFO(p.name << ": ours " << ours << ", PyTorch's float32 "
                << l2_relative(expect("grad." + p.name), exact));
    CHECK(ours < (p.name.starts_with("fc.") ? 2e-4 : 5e-2));
  }
  for (const NamedTensor& ours : export_state(*backend, model.state(), nullptr)) {
    INFO(ours.name);
    const NamedTensor theirs = torch.read("state." + ours.name);
    REQUIRE(theirs.shape == ours.shape);
    if (ours.dtype == parity::DType::kInt64) {
      CHECK(ours.values<std::int64_t>() == theirs.values<std::int64_t>());
    } else {
      CHECK(relative_difference(ours.values<float>(), theirs.values<float>()) < 1e-4);
    }
  }
  const Tensor eval = model.forward(backend->from_host(input, x), Mode::kEval);
  CHECK(relative_difference(backend->to_host(eval), expect("logits.eval")) < 1e-4);
}

}  // namespace

TEST_CASE("ResNet-18 with the small-image stem computes what torchvision computes", "[e2e]") {
  compare_with_torchvision(18, Stem::kAuto, {8, 3, 32, 32}, 10);
}

TEST_CASE("ResNet-50 with the ImageNet stem computes what torchvision computes", "[e2e]") {
  compare_with_torchvision(50, Stem::kImageNet, {4, 3, 64, 64}, 7);
}

TEST_CASE("every ResNet depth has torchvision's parameter names and shapes", "[unit]") {
  auto backend = make_cpu_backend({});
  Tracing tracing;
  const std::map<int, std::pair<std::size_t, std::int64_t>> expected{
      // depth: (state_dict entries, parameters) of torchvision's models
      {18, {122, 11689512}}, {34, {218, 21797672}}, {50, {320, 25557032}},
      {101, {626, 44549160}}, {152, {932, 60192808}}};
  for (const auto& [depth, counts] : expected) {
    DYNAMIC_SECTION("resnet" << depth) {
      ResNet model(*backend, {depth, 1000, true, {2, 3, 64, 64}, 1, Stem::kImageNet, {}}, tracing);
      CHECK(model.state().entries.size() == counts.first);
      std::int64_t parameters = 0;
      for (const Parameter& p : model.state().parameters) parameters += element_count(p.shape);
      CHECK(parameters == counts.second);
      CHECK(model.state().entries.front().name == "conv1.weight");
      CHECK(model.state().entries.back().name == "fc.bias");
      // zero_init_residual: every block's last BN weight starts at zero.
      const std::string last_bn = depth < 50 ? "layer1.0.bn2.weight" : "layer1.0.bn3.weight";
      for (const Parameter& p : model.state().parameters)
        if (p.name == last_bn) CHECK(backend->to_host(p.tensors->value) == std::vector<float>(64 * (depth < 50 ? 1 : 4), 0.f));
    }
  }
}

TEST_CASE("initial weights follow torchvision's distributions", "[unit]") {
  auto backend = make_cpu_backend({});
  Tracing tracing;
  ResNet model(*backend, {50, 10, false, {2, 3, 64, 64}, 3, Stem::kImageNet, {}}, tracing);
  for (const Parameter& p : model.state().parameters) {
    INFO(p.name);
    const auto values = backend->to_host(p.tensors->value);
    double sum = 0, squares = 0, largest = 0;
    for (const float v : values) sum += v, squares += double(v) * v, largest = std::max(largest, double(std::abs(v)));
    const double n = double(values.size()), mean = sum / n, std_dev = std::sqrt(squares / n - mean * mean);
    if (p.shape.size() == 4 && values.size() >= 4096) {
      // kaiming_normal_(mode="fan_out", nonlinearity="relu")
      CHECK(std_dev == Approx(std::sqrt(2.0 / double(p.shape[0] * p.shape[2] * p.shape[3]))).epsilon(0.05));
      CHECK(std::abs(mean) < 0.05 * std_dev);
    } else if (p.name.starts_with("fc.")) {
      // nn.Linear: U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in = 2048
      const double bound = 1.0 / std::sqrt(2048.0);
      CHECK(largest <= bound);
      if (p.name == "fc.weight") CHECK(std_dev == Approx(bound / std::sqrt(3.0)).epsilon(0.05));
    } else if (p.shape.size() == 1) {
      CHECK(std_dev == 0.0);
      CHECK(mean == (p.name.ends_with(".weight") ? 1.0 : 0.0));
    }
  }
}
