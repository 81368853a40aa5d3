// One layer run through training forward, backward and an evaluation
// forward on the CPU backend and on the CUDA backend, compared output by
// output, gradient by gradient and buffer by buffer.
#pragma once

#include <functional>

#include "backend_pair.hpp"
#include "host_rounding.hpp"

namespace cuda_test {

// One layer run on one backend: training forward, backward, then an
// evaluation forward on another batch. Inputs, incoming gradients and
// weights are values of `format`, so that both backends start from the same
// numbers: a 16-bit backend rounding them itself would break ties of max
// pooling and flip ReLU masks against the CPU's float32 values.
struct LayerRun {
  std::vector<float> y, dx, eval_y;
  std::vector<std::vector<float>> grads, buffers;
};

using OpFactory = std::function<std::unique_ptr<LayerOp>(Backend&)>;

inline LayerRun run_layer(Backend& backend, const OpFactory& make, const Dims& input,
                          const Dims& eval_input, unsigned seed, Precision format) {
  const auto values = [format](std::size_t count, unsigned value_seed, float low, float high) {
    return rounded_to(format, random_floats(count, value_seed, low, high));
  };
  auto op = make(backend);
  for (const ParamSlot& slot : op->parameters())
    backend.write(slot.tensors->value,
                  values(std::size_t(element_count(slot.shape)), seed++, -0.5f, 0.5f));
  const auto x = values(std::size_t(element_count(input)), seed++, -2.f, 2.f);
  LayerRun run;
  const Tensor y = op->forward(backend.from_host(input, x), Mode::kTrain);
  run.y = backend.to_host(y);
  const auto dy = values(std::size_t(y.element_count()), seed++, -1.f, 1.f);
  const Tensor dx = op->backward(backend.from_host(y.dims(), dy));
  if (dx.defined()) run.dx = backend.to_host(dx);
  for (const ParamSlot& slot : op->parameters())
    run.grads.push_back(backend.to_host(slot.tensors->grad));
  for (const BufferSlot& slot : op->buffers()) run.buffers.push_back(backend.to_host(*slot.tensor));
  const auto eval_x = values(std::size_t(element_count(eval_input)), seed++, -2.f, 2.f);
  run.eval_y = backend.to_host(op->forward(backend.from_host(eval_input, eval_x), Mode::kEval));
  return run;
}

// The layer on the CUDA backend in `precision` against the CPU backend.
inline void compare_layer(const OpFactory& make, const Dims& input, const Dims& eval_input,
                          Precision precision = Precision::kFloat32) {
  const double tolerance = tolerance_of(precision);
  const LayerRun want = run_layer(cpu(), make, input, eval_input, 7, precision);
  const LayerRun got = run_layer(gpu(precision), make, input, eval_input, 7, precision);
  check_close(got.y, want.y, "forward", tolerance);
  REQUIRE(got.dx.size() == want.dx.size());
  if (!want.dx.empty()) check_close(got.dx, want.dx, "input gradient", tolerance);
  REQUIRE(got.grads.size() == want.grads.size());
  for (std::size_t i = 0; i < want.grads.size(); ++i)
    check_close(got.grads[i], want.grads[i], "parameter gradient", tolerance);
  REQUIRE(got.buffers.size() == want.buffers.size());
  for (std::size_t i = 0; i < want.buffers.size(); ++i)
    check_close(got.buffers[i], want.buffers[i], "buffer", tolerance);
  check_close(got.eval_y, want.eval_y, "evaluation forward", tolerance);
}

// The residual add with ReLU (output and input gradient) and the plain add
// on `backend`, of fixed random inputs of `dims` that are values of
// `format` (as run_layer's: no ReLU mask flips between the backends).
inline std::vector<std::vector<float>> residual_add_results(Backend& backend, const Dims& dims,
                                                            Precision format) {
  const auto values = [&](unsigned seed) {
    return rounded_to(format, random_floats(std::size_t(element_count(dims)), seed));
  };
  const auto a = values(1), b = values(2), dy = values(3);
  auto op = backend.residual_add_relu();
  const Tensor y = op->forward(backend.from_host(dims, a), backend.from_host(dims, b), Mode::kTrain);
  const Tensor dx = op->backward(backend.from_host(dims, dy));
  const Tensor sum = backend.add(backend.from_host(dims, a), backend.from_host(dims, b));
  return {backend.to_host(y), backend.to_host(dx), backend.to_host(sum)};
}

// Shapes for the elementwise kernels: a count of whole 16-byte packs, and one
// with a tail of single elements in every precision (315 = 39 * 8 + 3).
inline const std::vector<Dims> kElementwiseShapes{{4, 16, 6, 6}, {3, 5, 7, 3}};

}  // namespace cuda_test
