// Data-parallel gradients against single-process training, run as 2 and 4
// ranks under mpirun. Each rank starts from its own random weights (rank 0's
// must win the broadcast), trains one step of ResNet-50 on its slice of a
// global batch, and averages gradients through the reducer with several
// splits. The reference is computed on every rank, in one process, over the
// concatenated batch: the mean loss of the whole batch, its gradient summed
// in float64. BN normalises each rank's slice with that slice's statistics,
// as per-rank BN (the seeds' setting) does, so the reference runs the
// concatenated batch slice by slice through the same BN.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "mpi_world.hpp"
#include "parity/trainer/backend/cpu_backend.hpp"
#include "parity/trainer/dist/data_parallel.hpp"
#include "parity/trainer/dist/gradient_reducer.hpp"
#include "parity/trainer/loss/softmax_cross_entropy.hpp"
#include "parity/trainer/nn/resnet.hpp"

using namespace parity::trainer;

namespace {

constexpr std::int64_t kPerRank = 2, kClasses = 10, kSize = 16;
constexpr std::uint64_t kRank0Seed = 7;

struct GlobalBatch {
  std::vector<float> images;
  std::vector<std::int32_t> labels;
};

GlobalBatch global_batch(int ranks) {
  const std::int64_t images = kPerRank * ranks;
  GlobalBatch batch;
  std::mt19937 random(11);
  std::normal_distribution<float> pixel(0.f, 1.f);
  batch.images.resize(static_cast<std::size_t>(images * 3 * kSize * kSize));
  for (float& value : batch.images) value = pixel(random);
  for (std::int64_t n = 0; n < images; ++n)
    batch.labels.push_back(static_cast<std::int32_t>(random() % kClasses));
  return batch;
}

const Dims kSliceDims{kPerRank, 3, kSize, kSize};

ResNetOptions network(std::uint64_t seed) {
  return {50, kClasses, false, kSliceDims, seed, Stem::kAuto, {}};
}

// Forward and backward of slice `slice` of the global batch; the loss
// gradient is that of the slice's mean loss.
void forward_backward(Backend& backend, ResNet& model, const GlobalBatch& batch, int slice) {
  const std::size_t pixels = static_cast<std::size_t>(element_count(kSliceDims));
  const std::vector<float> images(
      batch.images.begin() + static_cast<std::ptrdiff_t>(pixels * slice),
      batch.images.begin() + static_cast<std::ptrdiff_t>(pixels * (slice + 1)));
  const std::vector<std::int32_t> labels(batch.labels.begin() + kPerRank * slice,
                                         batch.labels.begin() + kPerRank * (slice + 1));
  const Tensor logits = model.forward(backend.from_host(kSliceDims, images), Mode::kTrain);
  const LossResult loss = softmax_cross_entropy(backend.to_host(logits), labels, kClasses, {});
  model.backward(backend.from_host({kPerRank, kClasses}, loss.grad_logits));
}

// d(mean loss over the concatenated batch)/d(parameter), in float64.
std::vector<std::vector<double>> reference_gradients(const GlobalBatch& batch, int ranks) {
  auto backend = make_cpu_backend({1, true});
  Tracing tracing;
  ResNet model(*backend, network(kRank0Seed), tracing);
  std::vector<std::vector<double>> sums;
  for (const Parameter& p : model.state().parameters)
    sums.emplace_back(static_cast<std::size_t>(element_count(p.shape)), 0.0);
  for (int slice = 0; slice < ranks; ++slice) {
    forward_backward(*backend, model, batch, slice);
    for (std::size_t i = 0; i < sums.size(); ++i) {
      const std::vector<float> grad = backend->to_host(model.state().parameters[i].tensors->grad);
      for (std::size_t k = 0; k < grad.size(); ++k) sums[i][k] += double(grad[k]) / ranks;
    }
  }
  return sums;
}

// Records the size of every AllReduce, in order, and passes it on.
class CallLog final : public Communicator {
 public:
  explicit CallLog(Communicator& inner) : inner_(inner) {}
  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  std::string describe() const override { return inner_.describe(); }
  void allreduce_mean(std::span<float> values) override {
    sizes.push_back(values.size());
    inner_.allreduce_mean(values);
  }
  void broadcast(std::span<float> values, int root) override { inner_.broadcast(values, root); }
  bool any(bool flag) override { return inner_.any(flag); }
  void abort(int code) override { inner_.abort(code); }
  std::vector<std::size_t> sizes;

 private:
  Communicator& inner_;
};

}  // namespace

TEST_CASE("averaged gradients equal one process's on the concatenated batch, for every split",
          "[e2e]") {
  Communicator& world = mpi_world();
  const int ranks = world.size();
  const GlobalBatch batch = global_batch(ranks);
  // Catch2 runs the case once per section: the reference is computed once.
  static const std::vector<std::vector<double>> expected = reference_gradients(batch, ranks);

  for (const char* split : {"none", "one", "index:[85,160]", "split:[85,160]", "mb:2"}) {
    SECTION(split) {
      auto backend = make_cpu_backend({1, true});
      Tracing tracing;
      // Different weights on every rank until the broadcast.
      ResNet model(*backend, network(kRank0Seed + static_cast<std::uint64_t>(world.rank())),
                   tracing);
      const std::vector<Parameter>& parameters = model.state().parameters;
      REQUIRE(parameters.size() == 161);
      broadcast_state(world, *backend, model.state());
      CallLog calls(world);
      GradientReducer reducer(calls, *backend, parameters, gradient_buckets(split, parameters),
                              nullptr);
      tracing.gradients = &reducer;

      forward_backward(*backend, model, batch, world.rank());
      reducer.finish_step();

      double worst = 0;
      for (std::size_t i = 0; i < parameters.size(); ++i) {
        const std::vector<float> got = backend->to_host(parameters[i].tensors->grad);
        double scale = 1e-30, error = 0;
        for (std::size_t k = 0; k < got.size(); ++k) {
          scale = std::max(scale, std::abs(expected[i][k]));
          error = std::max(error, std::abs(double(got[k]) - expected[i][k]));
        }
        INFO(parameters[i].name << ": largest error " << error << " of a largest gradient "
                                << scale);
        // float32 rounding of the per-rank gradients and of their sum.
        CHECK(error <= 4e-6 * scale);
        worst = std::max(worst, error / scale);
      }
      INFO("worst relative error " << worst);
      // One AllReduce per bucket, from the last bucket to the first.
      const std::vector<parity::profiler::GradientBucket>& buckets = reducer.buckets();
      std::vector<std::size_t> expected_sizes;
      for (std::size_t b = buckets.size(); b-- > 0;)
        expected_sizes.push_back(reducer.bucket_bytes(b) / 4);
      CHECK(calls.sizes == expected_sizes);
    }
  }
}

TEST_CASE("ranks keep their own BN running statistics and share the weights", "[e2e]") {
  Communicator& world = mpi_world();
  if (world.size() < 2) return;  // registered with 2 and 4 ranks only
  const GlobalBatch batch = global_batch(world.size());
  auto backend = make_cpu_backend({1, true});
  Tracing tracing;
  ResNet model(*backend, network(kRank0Seed + static_cast<std::uint64_t>(world.rank())), tracing);
  broadcast_state(world, *backend, model.state());
  GradientReducer reducer(world, *backend, model.state().parameters,
                          gradient_buckets("mb:25", model.state().parameters), nullptr);
  tracing.gradients = &reducer;
  forward_backward(*backend, model, batch, world.rank());
  reducer.finish_step();

  // Rank 0's copy of each tensor, next to this rank's.
  const auto rank0_copy = [&](const Tensor& tensor) {
    std::vector<float> values = backend->to_host(tensor);
    world.broadcast(values, 0);
    return values;
  };
  for (const StateEntry& entry : model.state().entries) {
    if (!entry.tensor) continue;
    const std::vector<float> mine = backend->to_host(*entry.tensor);
    const std::vector<float> rank0 = rank0_copy(*entry.tensor);
    INFO(entry.name << " on rank " << world.rank());
    if (entry.kind == StateEntry::kParameter) CHECK(mine == rank0);
    if (entry.name == "bn1.running_mean" && world.rank() != 0) CHECK(mine != rank0);
  }
}
