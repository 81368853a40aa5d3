// What THOR keeps of one layer (a convolution or the classifier): its
// weight, the statistics of the step that refreshes its factors, and the
// damped inverses every step uses.
#pragma once

#include <cstdint>
#include <vector>

#include "block_diagonal.hpp"
#include "parity/trainer/nn/curvature_tap.hpp"
#include "parity/trainer/nn/module.hpp"

namespace parity::trainer::thor {

struct LayerCurvature {
  const Parameter* weight = nullptr;
  std::int64_t rows = 0, columns = 0;  // the weight as out x (in * kernel^2)
  WeightGeometry geometry;
  Dims input;                  // [N, C, H, W] (or [N, C]) of the collecting step
  std::int64_t out_pixels = 1;  // a convolution's output height x width

  // The collecting step's statistics: for a convolution the batch means of
  // its input [C, H, W] and output gradient [out, pixels]; for the
  // classifier the factors' blocks themselves (x^T x / N and N dy^T dy,
  // the loss scale not yet divided out). Emptied by the refresh.
  std::vector<float> input_statistic, output_statistic;

  BlockDiagonal a_inverse, g_inverse;

  bool is_conv() const { return geometry.kind == WeightGeometry::kConv; }
};

}  // namespace parity::trainer::thor
