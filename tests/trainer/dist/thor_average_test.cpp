// THOR under data parallel, as real MPI ranks: each rank runs its slice of a
// global batch through the small THOR network (no batch norm), averages the
// gradients through the reducer, and preconditions them.
//   thor_allreduce: statistics - the preconditioned gradients and the
//     inverses equal one process's on the concatenated batch;
//   thor_allreduce: inverses (MindSpore's) - every rank ends with the same
//     inverses (their mean), one AllReduce message per split_indices segment.
#include <catch2/catch.hpp>
#include <cmath>

#include "mpi_world.hpp"
#include "parity/trainer/dist/data_parallel.hpp"
#include "parity/trainer/dist/gradient_reducer.hpp"
#include "parity/trainer/optim/thor.hpp"
#include "small_net.hpp"

using namespace parity::trainer;
using namespace thor_test;

namespace {

constexpr std::int64_t kPerRank = 2;
constexpr double kLossScale = 64, kDamping = 0.03;

struct Batch {
  std::vector<float> images;
  std::vector<std::int32_t> labels;
};

Batch slice(const Batch& global, std::int64_t first, std::int64_t count) {
  const std::int64_t pixels = element_count(image_dims(1));
  return {{global.images.begin() + first * pixels, global.images.begin() + (first + count) * pixels},
          {global.labels.begin() + first, global.labels.begin() + first + count}};
}

struct Result {
  std::vector<std::vector<float>> gradients;  // preconditioned, per parameter
  std::vector<parity::importers::NamedTensor> inverses;
};

// One THOR step's preconditioned gradients of `batch`, on `world`'s ranks
// (null: this process alone).
Result thor_step(const Batch& batch, Communicator* world, bool average_statistics,
                 std::vector<std::size_t>* message_sizes = nullptr) {
  SmallNet net(static_cast<std::int64_t>(batch.labels.size()), 1);
  net.initialise(3);
  ThorOptions options;
  options.dampings = {kDamping};
  options.average_statistics = average_statistics;
  options.split_indices = {1};  // segments {conv1, conv2} and {fc}
  std::unique_ptr<GradientReducer> reducer;
  struct Recording final : Communicator {
    Communicator& inner;
    std::vector<std::size_t>* sizes;
    Recording(Communicator& c, std::vector<std::size_t>* s) : inner(c), sizes(s) {}
    int rank() const override { return inner.rank(); }
    int size() const override { return inner.size(); }
    std::string describe() const override { return inner.describe(); }
    void allreduce_mean(std::span<float> values) override {
      if (sizes) sizes->push_back(values.size());
      inner.allreduce_mean(values);
    }
    void broadcast(std::span<float> values, int root) override { inner.broadcast(values, root); }
    bool any(bool flag) override { return inner.any(flag); }
    void abort(int code) override { inner.abort(code); }
  };
  std::optional<Recording> recording;
  if (world) {
    reducer = std::make_unique<GradientReducer>(*world, *net.backend, net.state.parameters,
                                                gradient_buckets("one", net.state.parameters), nullptr);
    net.tracing.gradients = reducer.get();
    recording.emplace(*world, message_sizes);
  }
  ThorPreconditioner thor(*net.backend, net.state, options, world ? &*recording : nullptr, nullptr);
  net.tracing.curvature = &thor;
  thor.begin_step(0);
  net.forward_backward(batch.images, batch.labels, kLossScale);
  if (reducer) reducer->finish_step();
  thor.precondition(0, kLossScale);
  Result result;
  for (const Parameter& p : net.state.parameters) result.gradients.push_back(net.backend->to_host(p.tensors->grad));
  result.inverses = thor.export_state();
  return result;
}

double relative_difference(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = 0.0, largest = 1e-30;
  for (std::size_t i = 0; i < a.size(); ++i) {
    worst = std::max(worst, std::abs(double(a[i]) - double(b[i])));
    largest = std::max(largest, std::abs(double(b[i])));
  }
  return worst / largest;
}

}  // namespace

TEST_CASE("THOR averaging the statistics: ranks equal one process on the concatenated batch", "[e2e]") {
  Communicator& world = mpi_world();
  const std::int64_t total = kPerRank * world.size();
  Batch global{normal_floats(total * element_count(image_dims(1)), 21, 1.0f), {}};
  for (std::int64_t n = 0; n < total; ++n) global.labels.push_back(static_cast<std::int32_t>((n * 37) % kClasses));

  const Result alone = thor_step(global, nullptr, true);
  const Result ranks = thor_step(slice(global, world.rank() * kPerRank, kPerRank), &world, true);
  REQUIRE(ranks.gradients.size() == alone.gradients.size());
  for (std::size_t i = 0; i < alone.gradients.size(); ++i) {
    const double difference = relative_difference(ranks.gradients[i], alone.gradients[i]);
    INFO("parameter " << i << ": relative difference " << difference);
    CHECK(difference < 2e-5);
  }
  REQUIRE(ranks.inverses.size() == alone.inverses.size());
  for (std::size_t i = 0; i < alone.inverses.size(); ++i) {
    const double difference =
        relative_difference(ranks.inverses[i].values<float>(), alone.inverses[i].values<float>());
    INFO(alone.inverses[i].name << ": relative difference " << difference);
    CHECK(difference < 2e-5);
  }
}

TEST_CASE("THOR averaging the inverses: every rank holds their mean, one message a segment", "[e2e]") {
  Communicator& world = mpi_world();
  const Batch own{normal_floats(kPerRank * element_count(image_dims(1)), 40 + world.rank(), 1.0f),
                  {1, static_cast<std::int32_t>(5 + world.rank())}};
  std::vector<std::size_t> sizes;
  const Result result = thor_step(own, &world, false, &sizes);
  // Two segments: conv1's and conv2's inverses, then fc's.
  const auto storage = [](std::int64_t dim) {
    return (dim / 128) * 128 * 128 + (dim % 128) * (dim % 128);
  };
  CHECK(sizes == std::vector<std::size_t>{std::size_t(storage(27) + storage(16) + storage(144) + storage(8)),
                                          std::size_t(storage(8) + storage(130))});
  // Rank 0's inverses reach every rank unchanged: they are the same everywhere.
  for (const parity::importers::NamedTensor& inverse : result.inverses) {
    std::vector<float> values = inverse.values<float>();
    std::vector<float> rank0 = values;
    world.broadcast(rank0, 0);
    INFO(inverse.name);
    CHECK(values == rank0);
  }
  // And they are not rank 0's own: the ranks' batches differ.
  const Result own_only = thor_step(own, nullptr, false);
  bool any_different = false;
  for (std::size_t i = 0; i < own_only.inverses.size(); ++i)
    any_different |= own_only.inverses[i].values<float>() != result.inverses[i].values<float>();
  CHECK(any_different);
}
