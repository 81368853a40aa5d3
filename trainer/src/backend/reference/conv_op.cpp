// Convolution in float64 as im2col and one matrix product per image:
// forward y_n = W col(x_n), the weight gradient dW = sum_n dy_n col(x_n)^T,
// the input gradient x_n += col2im(W^T dy_n). A 1x1 convolution with stride 1
// and no padding reads x_n itself as its column matrix.
#include <algorithm>
#include <vector>

#include "gemm.hpp"
#include "parity/core/error.hpp"
#include "reference_ops.hpp"
#include "reference_tensor.hpp"

namespace parity::trainer::reference {
namespace {

// Where the column matrix of one image comes from: the input's
// [C, H, W] plane and the output's spatial size.
struct Geometry {
  std::int64_t channels, height, width, kernel, stride, padding, out_height, out_width;

  std::int64_t rows() const { return channels * kernel * kernel; }
  std::int64_t columns() const { return out_height * out_width; }
  bool is_identity() const {
    return kernel == 1 && stride == 1 && padding == 0 && out_height == height && out_width == width;
  }
};

// col[(c, ki, kj), (oh, ow)] = x[c, oh * stride - padding + ki, ow * stride - padding + kj],
// zero where that falls in the padding.
void im2col(const double* x, const Geometry& g, double* col) {
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < g.channels; ++c)
    for (std::int64_t ki = 0; ki < g.kernel; ++ki)
      for (std::int64_t kj = 0; kj < g.kernel; ++kj) {
        double* row = col + ((c * g.kernel + ki) * g.kernel + kj) * g.columns();
        for (std::int64_t oh = 0; oh < g.out_height; ++oh) {
          const std::int64_t ih = oh * g.stride - g.padding + ki;
          for (std::int64_t ow = 0; ow < g.out_width; ++ow) {
            const std::int64_t iw = ow * g.stride - g.padding + kj;
            const bool inside = ih >= 0 && ih < g.height && iw >= 0 && iw < g.width;
            row[oh * g.out_width + ow] = inside ? x[(c * g.height + ih) * g.width + iw] : 0.0;
          }
        }
      }
}

// The adjoint of im2col: adds each column entry to the input element it was read from.
void col2im_add(const double* col, const Geometry& g, double* x) {
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < g.channels; ++c)
    for (std::int64_t ki = 0; ki < g.kernel; ++ki)
      for (std::int64_t kj = 0; kj < g.kernel; ++kj) {
        const double* row = col + ((c * g.kernel + ki) * g.kernel + kj) * g.columns();
        for (std::int64_t oh = 0; oh < g.out_height; ++oh) {
          const std::int64_t ih = oh * g.stride - g.padding + ki;
          if (ih < 0 || ih >= g.height) continue;
          for (std::int64_t ow = 0; ow < g.out_width; ++ow) {
            const std::int64_t iw = ow * g.stride - g.padding + kj;
            if (iw >= 0 && iw < g.width)
              x[(c * g.height + ih) * g.width + iw] += row[oh * g.out_width + ow];
          }
        }
      }
}

class Conv2dOp final : public LayerOp {
 public:
  explicit Conv2dOp(const Conv2dSpec& spec)
      : spec_(spec), weight_(make_param(weight_dims())) {
    if (spec.input.size() != 4 || spec.input[1] != spec.in_channels)
      throw Error("convolution input " + dims_text(spec.input) + " does not have " +
                      std::to_string(spec.in_channels) + " channels in NCHW",
                  "float64 reference backend");
  }

  Tensor forward(const Tensor& x, Mode mode) override {
    require_nchw(x, "convolution");
    if (x.dims()[1] != spec_.in_channels)
      throw Error("convolution input " + dims_text(x.dims()) + " does not have " +
                      std::to_string(spec_.in_channels) + " channels",
                  "float64 reference backend");
    if (mode == Mode::kTrain && x.dims() != spec_.input)
      throw Error("training batch " + dims_text(x.dims()) + " differs from the model's " +
                      dims_text(spec_.input),
                  "float64 reference backend convolution",
                  "train with drop_last batches of one size");
    const Geometry g = geometry(x.dims());
    const std::int64_t batch = x.dims()[0];
    Tensor y = make_tensor({batch, spec_.out_channels, g.out_height, g.out_width});
    const double* input = values_of(x).data();
    double* output = values_of(y).data();
    const MatrixView weights = row_major(values_of(weight_.value).data(), g.rows());
    for (std::int64_t n = 0; n < batch; ++n)
      gemm(spec_.out_channels, g.columns(), g.rows(), weights,
           columns_of(input + n * image_size(g), g), output + n * spec_.out_channels * g.columns(),
           g.columns(), false);
    if (mode == Mode::kTrain) saved_input_ = x;
    return y;
  }

  Tensor backward(const Tensor& dy) override {
    if (!saved_input_.defined())
      throw Error("convolution backward without a training forward", "float64 reference backend");
    const Geometry g = geometry(spec_.input);
    const std::int64_t batch = spec_.input[0];
    const std::int64_t out_image = spec_.out_channels * g.columns();
    if (dy.dims() != Dims{batch, spec_.out_channels, g.out_height, g.out_width})
      throw Error("convolution output gradient " + dims_text(dy.dims()) + " does not fit",
                  "float64 reference backend");
    const double* input = values_of(saved_input_).data();
    const double* grad_out = values_of(dy).data();
    double* grad_weight = values_of(weight_.grad).data();
    for (std::int64_t n = 0; n < batch; ++n)
      gemm(spec_.out_channels, g.rows(), g.columns(), row_major(grad_out + n * out_image, g.columns()),
           columns_of(input + n * image_size(g), g).transposed(), grad_weight, g.rows(), n > 0);
    Tensor dx;
    if (spec_.input_grad) {
      dx = make_tensor(spec_.input);
      double* grad_in = values_of(dx).data();
      const MatrixView weights_t = row_major(values_of(weight_.value).data(), g.rows()).transposed();
      std::vector<double> col(g.is_identity() ? 0 : std::size_t(g.rows() * g.columns()));
      for (std::int64_t n = 0; n < batch; ++n) {
        double* image = grad_in + n * image_size(g);
        // A 1x1 stride-1 convolution's column matrix is the image itself.
        double* target = g.is_identity() ? image : col.data();
        gemm(g.rows(), g.columns(), spec_.out_channels, weights_t,
             row_major(grad_out + n * out_image, g.columns()), target, g.columns(), false);
        if (!g.is_identity()) col2im_add(col.data(), g, image);
      }
    }
    saved_input_ = Tensor();
    return dx;
  }

  std::vector<ParamSlot> parameters() override {
    return {{"weight", &weight_, weight_dims(), true}};
  }
  std::string_view kind() const override { return "conv2d"; }

 private:
  Dims weight_dims() const {
    return {spec_.out_channels, spec_.in_channels, spec_.kernel, spec_.kernel};
  }
  Geometry geometry(const Dims& input) const {
    // Padding after the edges (padding_end) only shortens or lengthens the
    // output: the column matrix pads what lies past the input with zeros.
    return {input[1],          input[2],      input[3],
            spec_.kernel,      spec_.stride,  spec_.padding,
            spec_.output_size(input[2]), spec_.output_size(input[3])};
  }
  static std::int64_t image_size(const Geometry& g) { return g.channels * g.height * g.width; }

  // The column matrix of one image: the image itself, or its im2col in a buffer.
  MatrixView columns_of(const double* image, const Geometry& g) {
    if (g.is_identity()) return row_major(image, g.columns());
    columns_.resize(std::size_t(g.rows() * g.columns()));
    im2col(image, g, columns_.data());
    return row_major(columns_.data(), g.columns());
  }

  Conv2dSpec spec_;
  ParamTensors weight_;
  Tensor saved_input_;
  std::vector<double> columns_;  // one image's im2col, reused
};

}  // namespace

std::unique_ptr<LayerOp> make_conv2d(const Conv2dSpec& spec) {
  return std::make_unique<Conv2dOp>(spec);
}

}  // namespace parity::trainer::reference
