// The host KroneckerEngine's state as the preconditioner moves it (rank
// averages, checkpoints): each part reads back what was written, in
// BlockLayout's sizes, and a wrong size or a missing step is an error,
// not a silent wrong answer.
#include <catch2/catch.hpp>

#include "parity/core/error.hpp"
#include "parity/trainer/backend/cpu_backend.hpp"
#include "parity/trainer/optim/kronecker_engine.hpp"

using namespace parity::trainer;

namespace {

const std::vector<KroneckerLayerShape> kShapes{{130, 144, true}, {10, 64, false}};

std::vector<float> counting(std::size_t count) {
  std::vector<float> values(count);
  for (std::size_t i = 0; i < count; ++i) values[i] = float(i) * 0.5f;
  return values;
}

}  // namespace

TEST_CASE("a host engine's inverses read back as written, in the block layout's sizes", "[unit]") {
  const auto backend = make_cpu_backend({1, true});
  const auto engine = make_host_kronecker_engine(*backend, kShapes);
  CHECK(engine->read(0, KroneckerPart::kAInverse).size() == 128 * 128 + 16 * 16);
  CHECK(engine->read(0, KroneckerPart::kGInverse).size() == 128 * 128 + 2 * 2);
  CHECK(engine->read(1, KroneckerPart::kAInverse).size() == 64 * 64);
  const std::vector<float> values = counting(10 * 10);
  engine->write(1, KroneckerPart::kGInverse, values);
  CHECK(engine->read(1, KroneckerPart::kGInverse) == values);
}

TEST_CASE("a host engine refuses a part of the wrong size and an inversion without factors", "[unit]") {
  const auto backend = make_cpu_backend({1, true});
  const auto engine = make_host_kronecker_engine(*backend, kShapes);
  CHECK_THROWS_WITH(engine->write(1, KroneckerPart::kAInverse, counting(63 * 63)),
                    Catch::Contains("4096") && Catch::Contains("3969"));
  const std::vector<InverseSettings> settings{{0.1, 1.0, "conv.weight"}, {0.1, 1.0, "fc.weight"}};
  CHECK_THROWS_WITH(engine->invert(settings), Catch::Contains("no factors"));
}

TEST_CASE("a host engine's classifier statistics are x^T x / N and N dy^T dy", "[unit]") {
  const auto backend = make_cpu_backend({1, true});
  const std::vector<KroneckerLayerShape> shapes{{3, 2, false}};
  const auto engine = make_host_kronecker_engine(*backend, shapes);
  // N = 2 samples of 2 features, and of 3 output gradients.
  const std::vector<float> x{1, 2, 3, 4}, dy{1, 0, 2, 0, 1, 1};
  engine->collect_input(0, WeightGeometry::linear(), backend->from_host({2, 2}, x));
  engine->collect_output_grad(0, backend->from_host({2, 3}, dy));
  // x^T x / 2 = [[10, 14], [14, 20]] / 2; 2 dy^T dy = 2 [[1, 0, 2], [0, 1, 1], [2, 1, 5]].
  CHECK(engine->read(0, KroneckerPart::kInputStatistic) == std::vector<float>{5, 7, 7, 10});
  CHECK(engine->read(0, KroneckerPart::kOutputStatistic) ==
        std::vector<float>{2, 0, 4, 0, 2, 2, 4, 2, 10});
}
