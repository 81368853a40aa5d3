#include "parity/trainer/optim/lr_schedule.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <map>

#include "parity/core/error.hpp"
#include "parity/trainer/config/config_choices.hpp"

using namespace parity::trainer;

namespace {

// Golden values from the seed's own Python functions (_generate_cosine_lr and
// model_zoo's _generate_steps_lr / _generate_poly_lr), run with Python 3.11 for
// 10 epochs x 10 steps, warmup 1 epoch, lr_max 0.256 (poly: lr_init 0.01).
const std::map<int, double> kSeedCosine{{0, 0.0256},
                                        {5, 0.15360000000000001},
                                        {9, 0.256},
                                        {10, 0.24917366529480914},
                                        {11, 0.2450023751469617},
                                        {29, 0.15958973236521148},
                                        {30, 0.15465131868022625},
                                        {50, 0.06615321075597333},
                                        {59, 0.03749286807494997},
                                        {60, 0.03484611774850261},
                                        {79, 0.0043982613688625955},
                                        {80, 0.0037147042274071097},
                                        {98, 1.0344947820068865e-05},
                                        {99, 1.0665542546490419e-05}};
const std::map<int, double> kModelZooSteps{{0, 0.0},       {5, 0.128},    {9, 0.23040000000000002},
                                           {10, 0.256},    {29, 0.256},   {30, 0.0256},
                                           {59, 0.0256},   {60, 0.00256}, {79, 0.00256},
                                           {80, 0.000256}, {99, 0.000256}};
const std::map<int, double> kModelZooPoly{{0, 0.01},
                                          {5, 0.133},
                                          {9, 0.23140000000000002},
                                          {10, 0.256},
                                          {11, 0.25034271604938274},
                                          {29, 0.1593204938271605},
                                          {50, 0.07901234567901234},
                                          {80, 0.012641975308641973},
                                          {98, 0.0001264197530864201},
                                          {99, 3.1604938271604716e-05}};

// model_zoo's _generate_liner_lr (lr_init 0.01, lr_end 0.001) and
// _generate_step_lr (which has no warmup: the recipe's warmup epoch must not
// show) from official/cv/ResNet/src/lr_generator.py, run the same way.
const std::map<int, double> kModelZooLinear{{0, 0.01},
                                            {5, 0.133},
                                            {9, 0.2314},
                                            {10, 0.256},
                                            {11, 0.25316666666666665},
                                            {29, 0.20216666666666666},
                                            {50, 0.14266666666666666},
                                            {79, 0.060500000000000026},
                                            {80, 0.057666666666666644},
                                            {98, 0.006666666666666654},
                                            {99, 0.0038333333333333552}};
const std::map<int, double> kModelZooStep{
    {0, 0.256},    {19, 0.256},    {20, 0.0256},   {49, 0.0256}, {50, 0.00256},
    {69, 0.00256}, {70, 0.000256}, {89, 0.000256}, {90, 5e-05},  {99, 5e-05}};

LrSchedule recipe(LrDecayMode mode, double lr_init = 0.0) {
  LrSchedule schedule;
  schedule.mode = mode;
  schedule.lr_init = lr_init;
  schedule.lr_max = 0.256;
  schedule.lr_end = 0.0;
  schedule.warmup_epochs = 1;
  schedule.epochs = 10;
  schedule.steps_per_epoch = 10;
  return schedule;
}

void check_golden(const std::vector<double>& rates, const std::map<int, double>& golden) {
  REQUIRE(rates.size() == 100);
  for (const auto& [step, expected] : golden) {
    INFO("step " << step);
    CHECK(rates[static_cast<std::size_t>(step)] == Approx(expected).epsilon(1e-14).margin(1e-18));
  }
}

}  // namespace

TEST_CASE("cosine is the seed's _generate_cosine_lr", "[unit]") {
  check_golden(generate_learning_rates(recipe(LrDecayMode::kCosine)), kSeedCosine);
}

TEST_CASE("steps and poly are model_zoo's", "[unit]") {
  check_golden(generate_learning_rates(recipe(LrDecayMode::kSteps)), kModelZooSteps);
  check_golden(generate_learning_rates(recipe(LrDecayMode::kPoly, 0.01)), kModelZooPoly);
}

TEST_CASE("linear and step are model_zoo's", "[unit]") {
  LrSchedule linear = recipe(LrDecayMode::kLinear, 0.01);
  linear.lr_end = 0.001;
  check_golden(generate_learning_rates(linear), kModelZooLinear);
  check_golden(generate_learning_rates(recipe(LrDecayMode::kStep, 0.01)), kModelZooStep);
  // 21 steps: the bounds 4.2, 10.5, 14.7 and 18.9 fall between steps.
  LrSchedule odd = recipe(LrDecayMode::kStep);
  odd.lr_max = 0.1;
  odd.epochs = 7;
  odd.steps_per_epoch = 3;
  const auto rates = generate_learning_rates(odd);
  REQUIRE(rates.size() == 21);
  CHECK(rates[4] == 0.1);
  CHECK(rates[5] == Approx(0.010000000000000002).epsilon(1e-15));
  CHECK(rates[10] == rates[5]);
  CHECK(rates[11] == Approx(0.001).epsilon(1e-15));
  CHECK(rates[14] == rates[11]);
  CHECK(rates[15] == Approx(0.0001).epsilon(1e-15));
  CHECK(rates[18] == rates[15]);
  CHECK(rates[19] == 5e-05);
}

TEST_CASE("warmup_cosine is NVIDIA's recipe per step", "[unit]") {
  LrSchedule schedule = recipe(LrDecayMode::kWarmupCosine);
  schedule.lr_end = 0.001;
  const auto rates = generate_learning_rates(schedule);
  CHECK(rates[0] == Approx(0.0256));
  CHECK(rates[9] == Approx(0.256));
  CHECK(rates[10] == Approx(0.256));  // the cosine starts at lr_max
  CHECK(rates[55] == Approx(0.001 + 0.5 * (1 + std::cos(M_PI * 45.0 / 90.0)) * 0.255));
  for (std::size_t i = 11; i < rates.size(); ++i) CHECK(rates[i] < rates[i - 1]);
  CHECK(rates.back() > 0.001);
}

TEST_CASE("constant warms up as steps does, then holds lr_max", "[unit]") {
  const auto rates = generate_learning_rates(recipe(LrDecayMode::kConstant));
  const auto steps = generate_learning_rates(recipe(LrDecayMode::kSteps));
  REQUIRE(rates.size() == steps.size());
  for (std::size_t i = 0; i < rates.size(); ++i) {
    INFO("step " << i);
    CHECK(rates[i] == (i < 10 ? steps[i] : recipe(LrDecayMode::kConstant).lr_max));
  }
}

TEST_CASE("decay modes parse by their config names", "[unit]") {
  for (const char* name :
       {"cosine", "steps", "step", "poly", "linear", "warmup_cosine", "constant"})
    CHECK(name_of(*choices_of<LrDecayMode>().parse(name)) == name);
  CHECK_FALSE(choices_of<LrDecayMode>().parse("exponential").has_value());
}

TEST_CASE("impossible schedules are refused naming the setting", "[unit]") {
  LrSchedule schedule = recipe(LrDecayMode::kCosine);
  schedule.warmup_epochs = 11;
  CHECK_THROWS_WITH(generate_learning_rates(schedule),
                    Catch::Contains("warmup (110 steps) is longer"));
  schedule = recipe(LrDecayMode::kCosine);
  schedule.epochs = 0;
  CHECK_THROWS_WITH(generate_learning_rates(schedule), Catch::Contains("epoch_size"));
  schedule = recipe(LrDecayMode::kCosine);
  schedule.lr_max = -1;
  CHECK_THROWS_AS(generate_learning_rates(schedule), parity::Error);
  schedule = recipe(LrDecayMode::kCosine);
  schedule.warmup_epochs = 0;  // no warmup: the first step is already decaying
  CHECK(generate_learning_rates(schedule)[0] == Approx(0.256 * (1.0 + 0.00001)));
}
