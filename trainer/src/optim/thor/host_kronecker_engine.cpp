// The host KroneckerEngine: each statistic and factor is a host copy, read
// through the backend in the plain logical layout; the products go through
// oneDNN's sgemm and the inverses through LAPACK in float64, one layer a
// thread (many small threaded calls would meet at a barrier each).
#include <exception>
#include <optional>

#include "block_diagonal.hpp"
#include "block_precondition.hpp"
#include "damped_inverse.hpp"
#include "kronecker_factors.hpp"
#include "parity/core/error.hpp"
#include "parity/trainer/backend/backend.hpp"
#include "parity/trainer/optim/kronecker_engine.hpp"

namespace parity::trainer {
namespace {

using thor::BlockDiagonal;

struct HostLayer {
  KroneckerLayerShape shape;
  WeightGeometry geometry;
  Dims input;                   // [N, C, H, W] of the collecting step
  std::int64_t out_pixels = 1;  // a convolution's output height x width
  // A convolution's batch means of its input [C, H, W] and output gradient
  // [out, pixels]; the classifier's x^T x / N and N dy^T dy blocks.
  std::vector<float> input_statistic, output_statistic;
  std::optional<BlockDiagonal> a, g;  // formed, not yet inverted
  BlockDiagonal a_inverse, g_inverse;
};

// Runs body(l) for every l < count, one l a thread; rethrows the first error.
template <typename Body>
void for_each_layer_parallel(std::size_t count, Body body) {
  std::vector<std::exception_ptr> errors(count);
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t l = 0; l < static_cast<std::int64_t>(count); ++l) {
    try {
      body(static_cast<std::size_t>(l));
    } catch (...) {
      errors[static_cast<std::size_t>(l)] = std::current_exception();
    }
  }
  for (const std::exception_ptr& error : errors)
    if (error) std::rethrow_exception(error);
}

class HostKroneckerEngine final : public KroneckerEngine {
 public:
  HostKroneckerEngine(Backend& backend, std::span<const KroneckerLayerShape> shapes)
      : backend_(backend) {
    for (const KroneckerLayerShape& shape : shapes) {
      HostLayer layer;
      layer.shape = shape;
      layer.a_inverse = BlockDiagonal(shape.columns);
      layer.g_inverse = BlockDiagonal(shape.rows);
      layers_.push_back(std::move(layer));
    }
  }

  void collect_input(std::size_t l, const WeightGeometry& geometry, const Tensor& input) override {
    HostLayer& layer = layers_.at(l);
    layer.geometry = geometry;
    layer.input = input.dims();
    const std::vector<float> host = backend_.to_host(input);
    const std::int64_t n = layer.input[0];
    if (layer.shape.conv) {
      layer.input_statistic = thor::batch_mean(host, n);
    } else {
      const std::vector<float> features = thor::transpose(host, n, layer.shape.columns);
      const BlockDiagonal a = thor::gram_blocks(features, layer.shape.columns, n, 1.0 / double(n));
      layer.input_statistic.assign(a.values().begin(), a.values().end());
    }
  }

  void collect_output_grad(std::size_t l, const Tensor& grad) override {
    HostLayer& layer = layers_.at(l);
    const std::vector<float> host = backend_.to_host(grad);
    const std::int64_t n = grad.dims()[0];
    if (layer.shape.conv) {
      layer.out_pixels = grad.element_count() / (n * layer.shape.rows);
      layer.output_statistic = thor::batch_mean(host, n);
    } else {
      const std::vector<float> outputs = thor::transpose(host, n, layer.shape.rows);
      const BlockDiagonal g = thor::gram_blocks(outputs, layer.shape.rows, n, double(n));
      layer.output_statistic.assign(g.values().begin(), g.values().end());
    }
  }

  void form_factors(std::size_t l, const FactorScales& scales) override {
    HostLayer& layer = layers_.at(l);
    if (layer.shape.conv) {
      const std::vector<float> columns = thor::im2col(
          layer.input_statistic, layer.input[1], layer.input[2], layer.input[3], layer.geometry);
      layer.a = thor::gram_blocks(columns, layer.shape.columns, layer.out_pixels, scales.a_scale);
      layer.g = thor::gram_blocks(layer.output_statistic, layer.shape.rows, layer.out_pixels,
                                  scales.g_scale);
    } else {
      layer.a = scaled(layer.input_statistic, layer.shape.columns, scales.a_scale);
      layer.g = scaled(layer.output_statistic, layer.shape.rows, scales.g_scale);
    }
    layer.input_statistic.clear();
    layer.output_statistic.clear();
  }

  void invert(std::span<const InverseSettings> settings) override {
    for_each_layer_parallel(layers_.size(), [&](std::size_t l) {
      HostLayer& layer = layers_[l];
      if (!layer.a || !layer.g)
        throw Error("THOR has no factors of " + settings[l].layer + " to invert", "THOR");
      const InverseSettings& s = settings[l];
      layer.a_inverse = thor::damped_inverse(*layer.a, s.damping, s.scale, s.layer);
      layer.g_inverse = thor::damped_inverse(*layer.g, s.damping, s.scale, s.layer);
      layer.a.reset();
      layer.g.reset();
    });
  }

  void precondition(std::span<const Tensor* const> weights) override {
    std::vector<std::vector<float>> grads(layers_.size());
    for (std::size_t l = 0; l < layers_.size(); ++l) grads[l] = backend_.to_host(*weights[l]);
    for_each_layer_parallel(layers_.size(), [&](std::size_t l) {
      thread_local std::vector<float> scratch;
      thor::precondition(grads[l], layers_[l].g_inverse, layers_[l].a_inverse, scratch);
    });
    for (std::size_t l = 0; l < layers_.size(); ++l) backend_.write(*weights[l], grads[l]);
  }

  std::vector<float> read(std::size_t l, KroneckerPart part) override {
    const std::span<float> values = storage(l, part);
    return {values.begin(), values.end()};
  }

  void write(std::size_t l, KroneckerPart part, std::span<const float> values) override {
    const std::span<float> target = storage(l, part);
    if (target.size() != values.size())
      throw Error("THOR layer " + std::to_string(l) + " keeps " + std::to_string(target.size()) +
                      " values of this part, not " + std::to_string(values.size()),
                  "THOR");
    std::copy(values.begin(), values.end(), target.begin());
  }

 private:
  static BlockDiagonal scaled(std::span<const float> blocks, std::int64_t dim, double scale) {
    BlockDiagonal out(dim);
    for (std::size_t i = 0; i < blocks.size(); ++i)
      out.values()[i] = static_cast<float>(blocks[i] * scale);
    return out;
  }

  std::span<float> storage(std::size_t l, KroneckerPart part) {
    HostLayer& layer = layers_.at(l);
    switch (part) {
      case KroneckerPart::kInputStatistic:
        return layer.input_statistic;
      case KroneckerPart::kOutputStatistic:
        return layer.output_statistic;
      case KroneckerPart::kAInverse:
        return layer.a_inverse.values();
      case KroneckerPart::kGInverse:
        return layer.g_inverse.values();
    }
    throw Error("unknown THOR part", "THOR");
  }

  Backend& backend_;
  std::vector<HostLayer> layers_;
};

}  // namespace

std::unique_ptr<KroneckerEngine> make_host_kronecker_engine(
    Backend& backend, std::span<const KroneckerLayerShape> layers) {
  return std::make_unique<HostKroneckerEngine>(backend, layers);
}

}  // namespace parity::trainer
