// Convolution in float64 as im2col and matrix products over groups of
// images: the column matrices of a group side by side, so that one product
// covers them all (a weight matrix is packed once per group, not once per
// image: what makes the small late layers fast). Forward Y = W col(x);
// the weight gradient dW = sum over groups of dY col(x)^T; the input
// gradient x += col2im(W^T dY).
#include <algorithm>
#include <vector>

#include "gemm.hpp"
#include "parity/core/error.hpp"
#include "reference_ops.hpp"
#include "reference_tensor.hpp"

namespace parity::trainer::reference {
namespace {

// The largest column matrix of a group, in elements (32 MiB of doubles);
// a group holds at least one image.
constexpr std::int64_t kGroupColumnsBudget = std::int64_t(1) << 22;

// Where the column matrix of one image comes from: the input's [C, H, W]
// plane and the output's spatial size.
struct Geometry {
  std::int64_t channels, height, width, kernel, stride, padding, out_height, out_width;

  std::int64_t rows() const { return channels * kernel * kernel; }
  std::int64_t columns() const { return out_height * out_width; }
  std::int64_t image_size() const { return channels * height * width; }
};

// col[(c, ki, kj), (oh, ow)] = x[c, oh * stride - padding + ki, ow * stride - padding + kj],
// zero where that falls in the padding; col's rows are `ld` apart.
void im2col(const double* x, const Geometry& g, double* col, std::int64_t ld) {
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < g.channels; ++c)
    for (std::int64_t ki = 0; ki < g.kernel; ++ki)
      for (std::int64_t kj = 0; kj < g.kernel; ++kj) {
        double* row = col + ((c * g.kernel + ki) * g.kernel + kj) * ld;
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
void col2im_add(const double* col, std::int64_t ld, const Geometry& g, double* x) {
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < g.channels; ++c)
    for (std::int64_t ki = 0; ki < g.kernel; ++ki)
      for (std::int64_t kj = 0; kj < g.kernel; ++kj) {
        const double* row = col + ((c * g.kernel + ki) * g.kernel + kj) * ld;
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

// Images [first, first + count) of a batch: their column matrices side by side.
struct Group {
  std::int64_t first, count;
};

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
    const std::int64_t out_channels = spec_.out_channels;
    Tensor y = make_tensor({x.dims()[0], out_channels, g.out_height, g.out_width});
    const double* input = values_of(x).data();
    double* output = values_of(y).data();
    for (const Group group : groups(g, x.dims()[0])) {
      const std::int64_t width = group.count * g.columns();
      const MatrixView columns = columns_of(input, g, group);
      products_.resize(std::size_t(out_channels * width));
      gemm(out_channels, width, g.rows(), row_major(values_of(weight_.value).data(), g.rows()),
           columns, products_.data(), width, false);
      // [O, images x OH x OW] back to NCHW.
      for (std::int64_t i = 0; i < group.count; ++i)
        for (std::int64_t o = 0; o < out_channels; ++o)
          std::copy_n(products_.data() + o * width + i * g.columns(), g.columns(),
                      output + ((group.first + i) * out_channels + o) * g.columns());
    }
    if (mode == Mode::kTrain) saved_input_ = x;
    return y;
  }

  Tensor backward(const Tensor& dy) override {
    if (!saved_input_.defined())
      throw Error("convolution backward without a training forward", "float64 reference backend");
    const Geometry g = geometry(spec_.input);
    const std::int64_t batch = spec_.input[0], out_channels = spec_.out_channels;
    if (dy.dims() != Dims{batch, out_channels, g.out_height, g.out_width})
      throw Error("convolution output gradient " + dims_text(dy.dims()) + " does not fit",
                  "float64 reference backend");
    const double* input = values_of(saved_input_).data();
    const double* grad_out = values_of(dy).data();
    double* grad_weight = values_of(weight_.grad).data();
    Tensor dx;
    if (spec_.input_grad) dx = make_tensor(spec_.input);
    bool first = true;
    for (const Group group : groups(g, batch)) {
      const std::int64_t width = group.count * g.columns();
      // NCHW to [O, images x OH x OW].
      products_.resize(std::size_t(out_channels * width));
      for (std::int64_t i = 0; i < group.count; ++i)
        for (std::int64_t o = 0; o < out_channels; ++o)
          std::copy_n(grad_out + ((group.first + i) * out_channels + o) * g.columns(),
                      g.columns(), products_.data() + o * width + i * g.columns());
      const MatrixView grad_products = row_major(products_.data(), width);
      gemm(out_channels, g.rows(), width, grad_products,
           columns_of(input, g, group).transposed(), grad_weight, g.rows(), !first);
      first = false;
      if (!spec_.input_grad) continue;
      grad_columns_.resize(std::size_t(g.rows() * width));
      gemm(g.rows(), width, out_channels,
           row_major(values_of(weight_.value).data(), g.rows()).transposed(), grad_products,
           grad_columns_.data(), width, false);
      double* grad_in = values_of(dx).data();
      for (std::int64_t i = 0; i < group.count; ++i)
        col2im_add(grad_columns_.data() + i * g.columns(), width, g,
                   grad_in + (group.first + i) * g.image_size());
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
    // Padding after the edges (padding_end) only sets the output's size:
    // im2col reads zeros for whatever lies past the input.
    return {input[1],          input[2],      input[3],
            spec_.kernel,      spec_.stride,  spec_.padding,
            spec_.output_size(input[2]), spec_.output_size(input[3])};
  }

  static std::vector<Group> groups(const Geometry& g, std::int64_t batch) {
    const std::int64_t per_image = std::max<std::int64_t>(g.rows() * g.columns(), 1);
    const std::int64_t size = std::clamp<std::int64_t>(kGroupColumnsBudget / per_image, 1, batch);
    std::vector<Group> all;
    for (std::int64_t first = 0; first < batch; first += size)
      all.push_back({first, std::min(size, batch - first)});
    return all;
  }

  // The column matrices of a group's images, side by side: [C k k, images x OH x OW].
  MatrixView columns_of(const double* input, const Geometry& g, const Group& group) {
    const std::int64_t width = group.count * g.columns();
    columns_.resize(std::size_t(g.rows() * width));
    for (std::int64_t i = 0; i < group.count; ++i)
      im2col(input + (group.first + i) * g.image_size(), g, columns_.data() + i * g.columns(),
             width);
    return row_major(columns_.data(), width);
  }

  Conv2dSpec spec_;
  ParamTensors weight_;
  Tensor saved_input_;
  // Reused between calls: a group's column matrix, its products with the
  // weights (or its output gradient), and the column gradient.
  std::vector<double> columns_, products_, grad_columns_;
};

}  // namespace

std::unique_ptr<LayerOp> make_conv2d(const Conv2dSpec& spec) {
  return std::make_unique<Conv2dOp>(spec);
}

}  // namespace parity::trainer::reference
