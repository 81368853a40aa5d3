// THOR's learning rate and damping against model_zoo's get_thor_lr and
// get_thor_damping (official/cv/ResNet/src/lr_generator.py), as computed at
// test time by thor_schedule_peer.py with Debian's Python and NumPy: float64
// per step, then NumPy's float32 cast. Ours must equal them exactly.
#include "parity/trainer/optim/thor_schedule.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>

#include "parity/core/error.hpp"
#include "parity/trainer/config/train_config.hpp"
#include "process.hpp"

using namespace parity::trainer;
namespace fs = std::filesystem;

namespace {

const fs::path kFixtures = PARITY_MODEL_ZOO_CONFIGS;

std::string exact(double value) {
  std::ostringstream text;
  text.precision(17);  // Python's float() reads back the same double
  text << value;
  return text.str();
}

struct PeerValues {
  double lr = 0, damping = 0;
};

// The peer's float32 learning rate and damping of each of `steps`.
std::map<std::int64_t, PeerValues> peer_values(const ThorSchedule& s,
                                               const std::vector<std::int64_t>& steps) {
  std::vector<std::string> argv{
      PARITY_PYTHON,         PARITY_THOR_SCHEDULE_PEER,      exact(s.lr_init),
      exact(s.lr_decay),     std::to_string(s.lr_end_epoch), std::to_string(s.decay_epochs),
      exact(s.damping_init), exact(s.damping_decay),         std::to_string(s.steps_per_epoch)};
  for (const std::int64_t step : steps) argv.push_back(std::to_string(step));
  const ProcessResult result = run_process(argv);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  std::map<std::int64_t, PeerValues> values;
  std::istringstream lines(result.out);
  std::int64_t step = 0;
  std::string lr, damping;
  while (lines >> step >> lr >> damping)
    values[step] = {std::strtod(lr.c_str(), nullptr), std::strtod(damping.c_str(), nullptr)};
  REQUIRE(values.size() == steps.size());
  return values;
}

// Ours at `steps` of a run of `count` steps equal the peer's, bit for bit.
void check_against_peer(const ThorSchedule& schedule, std::int64_t count,
                        const std::vector<std::int64_t>& steps) {
  const std::vector<double> rates = thor_learning_rates(schedule, count);
  const std::vector<double> dampings = thor_dampings(schedule, count);
  REQUIRE(rates.size() == static_cast<std::size_t>(count));
  REQUIRE(dampings.size() == static_cast<std::size_t>(count));
  for (const auto& [step, theirs] : peer_values(schedule, steps)) {
    INFO("step " << step);
    CHECK(rates[static_cast<std::size_t>(step)] == theirs.lr);
    CHECK(dampings[static_cast<std::size_t>(step)] == theirs.damping);
  }
}

TrainConfig fixture(const std::string& name) { return load_train_config(kFixtures / name); }

}  // namespace

TEST_CASE(
    "THOR's schedules of model_zoo's Ascend THOR config are get_thor_lr's and "
    "get_thor_damping's",
    "[unit]") {
  const TrainConfig config = fixture("resnet50_imagenet2012_Ascend_Thor_config.yaml");
  const ThorSchedule schedule = thor_schedule(config, 5004);  // ImageNet at batch 256
  const std::int64_t count = config.epoch_size * 5004;        // 225180: 45 epochs
  // The last step before epoch 39, the first two halvings, the last step.
  check_against_peer(schedule, count, {0, 195154, 195155, 195155 + 5004, 225179});
  const std::vector<double> rates = thor_learning_rates(schedule, count);
  const std::vector<double> dampings = thor_dampings(schedule, count);
  CHECK(rates[0] == Approx(0.0580291).margin(1e-7));
  CHECK(dampings[0] == Approx(0.0299996).margin(1e-7));
  // Halved at epoch 39 (step 195155) and again at 40, beyond the smooth decay.
  CHECK(rates[195155] < 0.51 * rates[195154]);
  CHECK(rates[195155 + 5004] < 0.51 * rates[195155 + 5003]);
}

TEST_CASE(
    "THOR's schedules of model_zoo's GPU THOR config are get_thor_lr's and "
    "get_thor_damping's",
    "[unit]") {
  const TrainConfig config = fixture("resnet50_imagenet2012_GPU_Thor_config.yaml");
  const ThorSchedule schedule = thor_schedule(config, 5004);
  const std::int64_t count = config.epoch_size * 5004;  // 40 epochs
  // Epoch 40, the second halving, is the run's last step.
  REQUIRE(count - 1 == 195155 + 5004);
  check_against_peer(schedule, count, {0, 100000, 195154, 195155, count - 1});
  CHECK(thor_learning_rates(schedule, 1)[0] == Approx(0.0567189).margin(1e-7));
  CHECK(thor_dampings(schedule, 1)[0] == Approx(0.0234497).margin(1e-7));
}

// A small schedule: 6 epochs of 10 steps, halved from epoch 3.
const ThorSchedule kSmallSchedule{.lr_init = 0.1,
                                  .lr_decay = 2.5,
                                  .lr_end_epoch = 6,
                                  .decay_epochs = 3,
                                  .damping_init = 0.03,
                                  .damping_decay = 0.5,
                                  .steps_per_epoch = 10};

TEST_CASE("THOR's schedules at 10 steps per epoch equal the peer's at every step", "[unit]") {
  const ThorSchedule schedule = kSmallSchedule;
  std::vector<std::int64_t> every_step(60);
  for (std::size_t i = 0; i < every_step.size(); ++i) every_step[i] = static_cast<std::int64_t>(i);
  check_against_peer(schedule, 60, every_step);
  const std::vector<double> rates = thor_learning_rates(schedule, 60);
  CHECK(rates.back() == 0.0);  // epoch lr_end_epoch: the base is 0
  // Step 29 is epoch 3.0, decay_epochs: halved from there.
  CHECK(rates[29] == static_cast<float>(0.1 * std::pow(0.5, 2.5) * 0.5));
  CHECK(thor_dampings(schedule, 10)[9] == static_cast<float>(0.03 * std::pow(0.5, 0.1)));
}

TEST_CASE("THOR's learning rate refuses steps past lr_end_epoch", "[unit]") {
  const ThorSchedule schedule = kSmallSchedule;
  CHECK(thor_learning_rates(schedule, 60).size() == 60);
  CHECK_THROWS_WITH(thor_learning_rates(schedule, 61),
                    Catch::Contains("lr_end_epoch 6") && Catch::Contains("after 60 steps, not 61"));
  // The damping has no such end: train.py's list is 70 epochs long only by choice.
  CHECK(thor_dampings(schedule, 61).size() == 61);
  CHECK_THROWS_AS(thor_learning_rates(schedule, -1), parity::Error);
  ThorSchedule no_steps = schedule;
  no_steps.steps_per_epoch = 0;
  CHECK_THROWS_WITH(thor_dampings(no_steps, 1), Catch::Contains("steps per epoch"));
}

TEST_CASE("a config's THOR schedule takes its THOR keys and lr_init", "[unit]") {
  const TrainConfig config =
      load_train_config({}, {"optimizer=Thor", "lr_init=0.2", "lr_decay=3", "lr_end_epoch=20",
                             "thor_lr_decay_epochs=15", "damping_init=0.05", "damping_decay=0.6"});
  const ThorSchedule schedule = thor_schedule(config, 7);
  CHECK(schedule.lr_init == 0.2);
  CHECK(schedule.lr_decay == 3.0);
  CHECK(schedule.lr_end_epoch == 20);
  CHECK(schedule.decay_epochs == 15);
  CHECK(schedule.damping_init == 0.05);
  CHECK(schedule.damping_decay == 0.6);
  CHECK(schedule.steps_per_epoch == 7);
}
