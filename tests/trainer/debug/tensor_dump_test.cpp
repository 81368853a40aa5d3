// Dumps written by training runs: every record in execution order, with
// values that obey the relations between them (the logits' gradient is the
// softmax minus the smoothed target, a block's output is relu(main +
// identity), SGD's first step, running statistics and momentum buffers),
// filters by step and content, stats-only
// dumps, a block with its ReLU dropped, and the anomaly stop at a planted NaN.
#include "parity/importers/dump/tensor_dump.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <sstream>

#include "expect_error.hpp"
#include "parity/importers/numpy.hpp"
#include "parity/trainer/debug/anomaly_detector.hpp"
#include "parity/trainer/train/training_run.hpp"
#include "temp_dir.hpp"

using namespace parity::trainer;
using parity::importers::DumpRecord;
using parity::importers::NamedTensor;
using parity::importers::TensorDump;
using parity::test::expect_error;
namespace fs = std::filesystem;

namespace {

constexpr std::int64_t kBatch = 2, kClasses = 4, kSize = 16;

// A ResNet-18 on a fixed batch of 16-pixel images, one thread, constant lr.
struct Run {
  TempDir dir;
  TrainConfig config;
  TrainOptions options;

  Run() {
    config.net_name = NetName::kResNet18;
    config.class_num = kClasses;
    config.lr_decay_mode = LrDecayMode::kConstant;
    config.lr_max = 0.05;
    config.weight_decay = 1e-4;
    config.label_smooth_factor = 0.1;
    config.epoch_size = 2;
    config.save_checkpoint = false;
    config.threads = 1;
    config.deterministic = true;
    std::vector<float> images(std::size_t(kBatch * 3 * kSize * kSize));
    for (std::size_t i = 0; i < images.size(); ++i) images[i] = float(std::sin(double(i) * 0.37));
    const std::vector<std::int64_t> labels{1, 3};
    parity::importers::write_npy(
        dir / "x.npy", NamedTensor::from_values<float>("x", {kBatch, 3, kSize, kSize}, images));
    parity::importers::write_npy(dir / "y.npy",
                                 NamedTensor::from_values<std::int64_t>("y", {kBatch}, labels));
    options.debug.input_images = dir / "x.npy";
    options.debug.input_labels = dir / "y.npy";
  }
  void dump(const std::string& name, const std::string& steps = "all",
            const std::string& what = "fwd,bwd,params,grads", bool stats_only = false) {
    DumpOptions dump;
    dump.dir = dir / name;
    dump.steps = StepSelection::parse(steps);
    dump.what = DumpContents::parse(what);
    dump.stats_only = stats_only;
    options.debug.dump = dump;
  }
  TrainSummary train() {
    std::ostringstream log;
    return parity::trainer::train(config, options, log);
  }
};

std::vector<const DumpRecord*> select(const TensorDump& dump, std::int64_t step,
                                      const std::string& phase) {
  std::vector<const DumpRecord*> out;
  for (const DumpRecord& r : dump.records())
    if (r.step == step && r.phase == phase) out.push_back(&r);
  return out;
}

const DumpRecord& find(const TensorDump& dump, const std::string& name, const std::string& role,
                       std::int64_t step = 0) {
  for (const DumpRecord& r : dump.records())
    if (r.name == name && r.role == role && r.step == step) return r;
  FAIL("no record " << name << " (" << role << ") at step " << step);
  throw;
}

std::vector<float> values(const TensorDump& dump, const std::string& name,
                          const std::string& role, std::int64_t step = 0) {
  return dump.read(find(dump, name, role, step)).values<float>();
}

// Per channel of an [N, C, H, W] batch: the mean and the unbiased variance,
// what a batch norm's running statistics take in.
std::pair<std::vector<double>, std::vector<double>> batch_statistics(const std::vector<float>& x,
                                                                     std::size_t channels) {
  const std::size_t plane = x.size() / (std::size_t(kBatch) * channels);
  const double n = double(kBatch) * double(plane);
  std::vector<double> mean(channels), var(channels);
  for (std::size_t c = 0; c < channels; ++c) {
    double sum = 0, squares = 0;
    for (std::size_t b = 0; b < std::size_t(kBatch); ++b)
      for (std::size_t i = 0; i < plane; ++i) sum += x[(b * channels + c) * plane + i];
    mean[c] = sum / n;
    for (std::size_t b = 0; b < std::size_t(kBatch); ++b)
      for (std::size_t i = 0; i < plane; ++i) {
        const double d = x[(b * channels + c) * plane + i] - mean[c];
        squares += d * d;
      }
    var[c] = squares / (n - 1);
  }
  return {mean, var};
}

// ResNet-18's forward records with the small-image stem, as docs/formats/dump.md lists them.
std::vector<std::pair<std::string, std::string>> expected_forward() {
  std::vector<std::pair<std::string, std::string>> names{
      {"input", "input"}, {"conv1", "conv2d"}, {"bn1", "batch_norm_relu"}};
  for (int stage = 1; stage <= 4; ++stage)
    for (int block = 0; block < 2; ++block) {
      const std::string b = "layer" + std::to_string(stage) + "." + std::to_string(block);
      names.insert(names.end(), {{b + ".conv1", "conv2d"},
                                 {b + ".bn1", "batch_norm_relu"},
                                 {b + ".conv2", "conv2d"},
                                 {b + ".bn2", "batch_norm"}});
      if (stage > 1 && block == 0)
        names.insert(names.end(),
                     {{b + ".downsample.0", "conv2d"}, {b + ".downsample.1", "batch_norm"}});
      names.push_back({b, "add_relu"});
    }
  names.insert(names.end(), {{"avgpool", "avg_pool"}, {"fc", "linear"}, {"loss", "cross_entropy"}});
  return names;
}

}  // namespace

TEST_CASE("a dump holds every module's output, gradient and parameter in execution order",
          "[e2e]") {
  Run run;
  run.options.max_steps = 1;
  run.dump("dump");
  const TrainSummary summary = run.train();
  const TensorDump dump = TensorDump::open(run.dir / "dump");
  CHECK(summary.dumped_tensors == std::int64_t(dump.records().size()));

  const auto forward = select(dump, 0, "forward");
  const auto expected = expected_forward();
  REQUIRE(forward.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO(i);
    CHECK(forward[i]->name == expected[i].first);
    CHECK(forward[i]->op == expected[i].second);
  }
  CHECK(forward.back()->role == "loss");
  CHECK(forward.back()->dtype == parity::DType::kFloat64);
  CHECK(*forward.back()->stats->mean == Approx(summary.last_loss).epsilon(1e-12));

  // Backward: the logits' gradient first; every parameter's gradient after
  // the gradient flowing into its module; as many as the model has.
  const auto backward = select(dump, 0, "backward");
  REQUIRE(!backward.empty());
  CHECK(backward.front()->name == "fc");
  CHECK(backward.front()->role == "grad_output");
  CHECK(backward.front()->shape == std::vector<std::int64_t>{kBatch, kClasses});
  std::map<std::string, std::size_t> seen;
  std::size_t grads = 0;
  for (std::size_t i = 0; i < backward.size(); ++i) {
    if (backward[i]->role == "grad_output") seen[backward[i]->name] = i;
    if (backward[i]->role != "grad") continue;
    ++grads;
    INFO(backward[i]->name);
    REQUIRE(seen.count(backward[i]->module) == 1);
  }
  CHECK(grads == 62);  // ResNet-18's parameters
  const auto update = select(dump, 0, "update");
  REQUIRE(update.size() == 2 * 62);
  CHECK(update.front()->role == "param_before");
  CHECK(update.front()->name == "conv1.weight");
  CHECK(update.front()->module == "conv1");
  CHECK(update.back()->role == "param_after");
  CHECK(update.back()->name == "fc.bias");

  // The logits' gradient: (softmax - ((1 - eps) one_hot + eps / K)) / N.
  const auto logits = values(dump, "fc", "output");
  const auto grad_logits = values(dump, "fc", "grad_output");
  const int labels[] = {1, 3};
  for (std::int64_t n = 0; n < kBatch; ++n) {
    double top = -1e30, sum = 0;
    for (std::int64_t k = 0; k < kClasses; ++k)
      top = std::max(top, double(logits[std::size_t(n * kClasses + k)]));
    for (std::int64_t k = 0; k < kClasses; ++k)
      sum += std::exp(logits[std::size_t(n * kClasses + k)] - top);
    for (std::int64_t k = 0; k < kClasses; ++k) {
      const double p = std::exp(logits[std::size_t(n * kClasses + k)] - top) / sum;
      const double target = (k == labels[n] ? 0.9 : 0.0) + 0.1 / kClasses;
      CHECK(grad_logits[std::size_t(n * kClasses + k)] ==
            Approx((p - target) / kBatch).margin(1e-7));
    }
  }
  // A block's output is relu(main + identity); its input is the stem's output.
  const auto block = values(dump, "layer1.0", "output");
  const auto main = values(dump, "layer1.0.bn2", "output");
  const auto identity = values(dump, "bn1", "output");
  REQUIRE(block.size() == main.size());
  for (std::size_t i = 0; i < block.size(); ++i)
    REQUIRE(block[i] == Approx(std::max(0.0f, main[i] + identity[i])).margin(1e-6));
  // SGD's first step: the momentum buffer is the gradient (with weight decay
  // for weights, without for batch-norm parameters).
  for (const auto& [name, decay] :
       {std::pair{"layer2.0.conv1.weight", 1e-4}, std::pair{"layer2.0.bn1.weight", 0.0}}) {
    const auto before = values(dump, name, "param_before");
    const auto after = values(dump, name, "param_after");
    const auto grad = values(dump, name, "grad");
    for (std::size_t i = 0; i < before.size(); ++i)
      REQUIRE(after[i] == Approx(before[i] - 0.05 * (grad[i] + decay * before[i])).margin(1e-7));
  }
}

TEST_CASE("a dump holds the buffers around each step and, when asked, SGD's momentum buffers",
          "[e2e]") {
  Run run;
  run.options.max_steps = 2;
  // PyTorch's momentum 0.1 in most batch norms, MindSpore's 0.9 copied into
  // one, and one whose statistics never move.
  run.options.debug.bugs = {PlantedBug::parse("bn-momentum:layer1.0.bn1"),
                            PlantedBug::parse("frozen-bn-stats:layer1.1.bn1")};
  run.dump("dump", "all", "fwd,params,grads,buffers,optimizer");
  run.train();
  const TensorDump dump = TensorDump::open(run.dir / "dump");

  // Step 1's update: 62 parameters and ResNet-18's 20 batch norms' three buffers each.
  const auto update = select(dump, 1, "update");
  const std::pair<std::string, std::size_t> groups[] = {{"param_before", 62},
                                                        {"buffer_before", 60},
                                                        {"param_after", 62},
                                                        {"buffer_after", 60},
                                                        {"optimizer_state_after", 62}};
  std::size_t at = 0;
  for (const auto& [role, count] : groups)
    for (std::size_t k = 0; k < count; ++k, ++at) {
      REQUIRE(at < update.size());
      INFO(update[at]->describe());
      CHECK(update[at]->role == role);
    }
  CHECK(at == update.size());
  const DumpRecord& first_buffer = find(dump, "bn1.running_mean", "buffer_before", 1);
  CHECK(first_buffer.module == "bn1");
  CHECK(first_buffer.op == "batch_norm_relu");
  const DumpRecord& counter = find(dump, "layer2.0.bn1.num_batches_tracked", "buffer_after", 1);
  CHECK(counter.dtype == parity::DType::kInt64);
  CHECK(counter.shape.empty());
  CHECK(dump.read(counter).values<std::int64_t>() == std::vector<std::int64_t>{2});
  CHECK(dump.read(find(dump, "layer2.0.bn1.num_batches_tracked", "buffer_before", 1))
            .values<std::int64_t>() == std::vector<std::int64_t>{1});

  // running = (1 - m) running + m batch, the variance unbiased, with the
  // batch statistics of the batch norm's input (the conv before it).
  const auto expect_running = [&](const std::string& bn, const std::string& input, double m) {
    INFO(bn << " momentum " << m);
    const auto x = values(dump, input, "output", 1);
    const auto before_mean = values(dump, bn + ".running_mean", "buffer_before", 1);
    const auto after_mean = values(dump, bn + ".running_mean", "buffer_after", 1);
    const auto before_var = values(dump, bn + ".running_var", "buffer_before", 1);
    const auto after_var = values(dump, bn + ".running_var", "buffer_after", 1);
    const auto [mean, var] = batch_statistics(x, before_mean.size());
    for (std::size_t c = 0; c < mean.size(); ++c) {
      REQUIRE(after_mean[c] == Approx((1 - m) * before_mean[c] + m * mean[c]).margin(1e-5));
      REQUIRE(after_var[c] == Approx((1 - m) * before_var[c] + m * var[c]).epsilon(1e-4));
    }
  };
  expect_running("layer2.0.bn1", "layer2.0.conv1", 0.1);
  expect_running("layer1.0.bn1", "layer1.0.conv1", 0.9);
  // Frozen: as they were made, mean 0 and variance 1, step after step.
  for (const char* role : {"buffer_before", "buffer_after"}) {
    for (const float v : values(dump, "layer1.1.bn1.running_mean", role, 1)) REQUIRE(v == 0.0f);
    for (const float v : values(dump, "layer1.1.bn1.running_var", role, 1)) REQUIRE(v == 1.0f);
  }

  // SGD's momentum buffer, what each update took: w1 = w0 - lr buf0 and
  // w2 = w1 - lr buf1, with buf0 = g0 + wd w0 and buf1 = 0.9 buf0 + g1 + wd w1.
  const std::string weight = "layer2.0.conv1.weight";
  const DumpRecord& buffer = find(dump, weight + ".momentum_buffer", "optimizer_state_after", 1);
  CHECK(buffer.module == "layer2.0.conv1");
  CHECK(buffer.op == "conv2d");
  const auto w0 = values(dump, weight, "param_before", 0);
  const auto w1 = values(dump, weight, "param_after", 0);
  const auto w2 = values(dump, weight, "param_after", 1);
  const auto buf0 = values(dump, weight + ".momentum_buffer", "optimizer_state_after", 0);
  const auto buf1 = dump.read(buffer).values<float>();
  const auto g0 = values(dump, weight, "grad", 0);
  const auto g1 = values(dump, weight, "grad", 1);
  for (std::size_t i = 0; i < w0.size(); ++i) {
    REQUIRE(buf0[i] == Approx(g0[i] + 1e-4 * w0[i]).margin(1e-7));
    REQUIRE(buf1[i] == Approx(0.9 * buf0[i] + g1[i] + 1e-4 * w1[i]).margin(1e-7));
    REQUIRE(w1[i] == Approx(w0[i] - 0.05 * buf0[i]).margin(1e-7));
    REQUIRE(w2[i] == Approx(w1[i] - 0.05 * buf1[i]).margin(1e-7));
  }
}

TEST_CASE("a block whose ReLU is dropped adds its branches and records no output of its own",
          "[e2e]") {
  Run run;
  run.options.max_steps = 1;
  run.options.debug.bugs = {PlantedBug::parse("drop-relu:layer1.0")};
  run.dump("dump", "all", "fwd,bwd");
  run.train();
  const TensorDump dump = TensorDump::open(run.dir / "dump");
  const auto named_block = [](const DumpRecord& r) { return r.name == "layer1.0"; };
  CHECK(std::none_of(dump.records().begin(), dump.records().end(), named_block));
  // The next block's shortcut is layer1.0's output, main + identity without
  // the ReLU: negative sums reach layer1.1 unclipped.
  const auto main = values(dump, "layer1.0.bn2", "output");
  const auto identity = values(dump, "bn1", "output");
  const auto next_main = values(dump, "layer1.1.bn2", "output");
  const auto next = values(dump, "layer1.1", "output");
  REQUIRE(next.size() == main.size());
  std::size_t negative = 0;
  for (std::size_t i = 0; i < next.size(); ++i) {
    const float sum = main[i] + identity[i];
    negative += sum < 0;
    REQUIRE(next[i] == Approx(std::max(0.0f, next_main[i] + sum)).margin(1e-5));
  }
  CHECK(negative > 0);
}

TEST_CASE("dumps cover the chosen steps and contents, stats-only dumps hold the same statistics",
          "[e2e]") {
  Run full;
  full.dump("dump", "1", "fwd,grads");
  full.train();
  const TensorDump dump = TensorDump::open(full.dir / "dump");
  for (const DumpRecord& r : dump.records()) {
    INFO(r.describe());
    CHECK(r.step == 1);
    CHECK((r.phase == "forward" || r.role == "grad"));
  }
  Run stats;
  stats.dump("stats", "1", "fwd,grads", true);
  stats.train();
  const TensorDump screened = TensorDump::open(stats.dir / "stats");
  CHECK(screened.header().stats_only);
  REQUIRE(screened.records().size() == dump.records().size());
  for (std::size_t i = 0; i < dump.records().size(); ++i) {
    const DumpRecord& a = dump.records()[i];
    const DumpRecord& b = screened.records()[i];
    INFO(a.describe());
    CHECK_FALSE(b.file.has_value());
    CHECK(b.name == a.name);
    // Deterministic runs: the same elements. A stats-only dump reads them in
    // the backend's own layout (TensorDumper::write), so the float64 sums may
    // round differently in their last bits; the extremes and counts are exact.
    CHECK(b.stats->l2 == Approx(a.stats->l2).epsilon(1e-12));
    CHECK(*b.stats->mean == Approx(*a.stats->mean).epsilon(1e-12).margin(1e-12));
    CHECK(b.stats->min == a.stats->min);
    CHECK(b.stats->max == a.stats->max);
    CHECK(b.stats->nan == a.stats->nan);
    CHECK(b.stats->inf == a.stats->inf);
  }
}

TEST_CASE("the anomaly check stops at a planted NaN, naming the op whose inputs were clean",
          "[e2e]") {
  Run run;
  run.options.debug.nan = PlantedNan::parse("layer2.0.conv1@1");
  run.options.debug.detect_anomaly = true;
  run.dump("dump");
  try {
    run.train();
    FAIL("training went on past the NaN");
  } catch (const AnomalyDetected& error) {
    const Anomaly& a = error.anomaly();
    CHECK(a.step == 1);
    CHECK(a.phase == "forward");
    CHECK(a.module == "layer2.0.conv1");
    CHECK(a.op == "conv2d");
    CHECK(a.nan == 1);
    CHECK(a.first_index == std::vector<std::int64_t>{0, 0, 0, 0});
    CHECK(a.last_clean == "layer1.1 (output)");
    CHECK_THAT(
        a.report(),
        Catch::Contains("inputs were clean while its output was not: layer2.0.conv1 (conv2d)"));
  }
  // The dump ends with the poisoned tensor, written before the stop.
  const TensorDump dump = TensorDump::open(run.dir / "dump");
  const DumpRecord& last = dump.records().back();
  CHECK(last.name == "layer2.0.conv1");
  CHECK(last.step == 1);
  CHECK(last.stats->nan == 1);
}

TEST_CASE("planted faults in layers that cannot hold them are refused", "[unit]") {
  const auto refused = [](const std::string& bug, const std::string& what) {
    Run run;
    run.options.max_steps = 1;
    run.options.debug.bugs = {PlantedBug::parse(bug)};
    expect_error([&] { run.train(); }, what, {"--plant-bug"});
  };
  refused("same-pad:layer1.0.conv1", "has stride 1, not 2");
  refused("transpose-weight:layer2.0.conv1", "64 -> 128 channels");
  refused("bn-eps:layer9.bn1", "no batch norm named 'layer9.bn1'");
  refused("same-pad:conv9", "no convolution named 'conv9'");
  refused("drop-relu:layer1.0.conv1", "no residual block named 'layer1.0.conv1'");
  refused("bn-momentum:layer1.0.conv1", "no batch norm named 'layer1.0.conv1'");
  refused("frozen-bn-stats:layer5.0.bn1", "no batch norm named 'layer5.0.bn1'");
  Run optimizer;
  optimizer.options.max_steps = 1;
  optimizer.config.momentum = 0;
  optimizer.dump("dump", "all", "fwd,optimizer");
  expect_error([&] { optimizer.train(); }, "momentum is 0", {"--dump-what"});
  Run run;
  run.options.max_steps = 2;
  run.options.debug.nan = PlantedNan::parse("layer9@0");
  expect_error([&] { run.train(); }, "no layer named 'layer9'", {"--plant-nan"});
}
