#include "kronecker_engine.hpp"

#include <cusolverDn.h>

#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "cuda_tensor.hpp"
#include "kernels.hpp"
#include "parity/core/error.hpp"
#include "thor_kernels.hpp"

namespace parity::trainer::cuda {
namespace {

static_assert(kernels::kPaddedBlock == kThorBlockSize, "the inversion pads to THOR's block size");

constexpr float kOne = 1.0f, kZero = 0.0f;
constexpr std::int64_t kBlockElements = kThorBlockSize * kThorBlockSize;

void check_solver(cusolverStatus_t status, const char* call) {
  if (status != CUSOLVER_STATUS_SUCCESS)
    throw Error(std::string(call) + " failed with cuSOLVER status " +
                    std::to_string(static_cast<int>(status)),
                "THOR on cuda",
                status == CUSOLVER_STATUS_ALLOC_FAILED
                    ? "the GPU is out of memory: lower batch_size"
                    : "is the cuSOLVER library the CUDA runtime's?");
}

int as_int(std::int64_t value) { return static_cast<int>(value); }

// A matrix of `dim` rows of `length` values, on the GPU, the diagonal blocks
// of whose Gram matrix (alpha M M^T) a factor is. Row i, element t is at
// data[i * length + t] (row-major, `rows_contiguous`) or data[t * dim + i]
// (a batch of samples [length, dim], such as the classifier's input).
struct GramSource {
  const float* data;
  std::int64_t dim, length;
  bool rows_contiguous;
};

DeviceBuffer floats(std::int64_t count, cudaStream_t stream) {
  return DeviceBuffer(static_cast<std::size_t>(count) * sizeof(float), stream);
}

struct DeviceLayer {
  KroneckerLayerShape shape;
  WeightGeometry geometry;
  Dims input;  // [N, C, H, W] or [N, C] of the collecting step
  std::int64_t out_pixels = 1;
  // A convolution's batch means, of its input [H, W, C] and of its output
  // gradient [pixels, out]; the classifier's x^T x / N and N dy^T dy blocks.
  DeviceBuffer input_statistic, output_statistic;
  DeviceBuffer a, g;  // formed, not yet inverted
  DeviceBuffer a_inverse, g_inverse;
};

class CudaKroneckerEngine final : public KroneckerEngine {
 public:
  CudaKroneckerEngine(Context& context, std::span<const KroneckerLayerShape> shapes)
      : context_(context) {
    check_solver(cusolverDnCreate(&solver_), "cusolverDnCreate");
    check_solver(cusolverDnSetStream(solver_, context_.stream), "cusolverDnSetStream");
    for (const KroneckerLayerShape& shape : shapes) {
      DeviceLayer layer;
      layer.shape = shape;
      layer.a_inverse = zeros(BlockLayout{shape.columns}.storage_size());
      layer.g_inverse = zeros(BlockLayout{shape.rows}.storage_size());
      layers_.push_back(std::move(layer));
    }
  }
  ~CudaKroneckerEngine() override { (void)cusolverDnDestroy(solver_); }
  CudaKroneckerEngine(const CudaKroneckerEngine&) = delete;
  CudaKroneckerEngine& operator=(const CudaKroneckerEngine&) = delete;

  void collect_input(std::size_t l, const WeightGeometry& geometry, const Tensor& input) override {
    DeviceLayer& layer = layers_.at(l);
    layer.geometry = geometry;
    layer.input = input.dims();
    const std::int64_t n = layer.input[0];
    if (layer.shape.conv) {
      const std::int64_t length = input.element_count() / n;
      layer.input_statistic = floats(length, context_.stream);
      kernels::batch_mean(type_of(input), raw(input), layer.input_statistic.as<float>(), n, length,
                          context_.stream);
    } else {
      const Tensor x = as_type(context_, input, Precision::kFloat32);
      layer.input_statistic =
          gram_blocks({data(x), layer.shape.columns, n, false}, 1.0 / double(n));
    }
  }

  void collect_output_grad(std::size_t l, const Tensor& grad) override {
    DeviceLayer& layer = layers_.at(l);
    const std::int64_t n = grad.dims()[0];
    if (layer.shape.conv) {
      const std::int64_t length = grad.element_count() / n;
      layer.out_pixels = length / layer.shape.rows;
      layer.output_statistic = floats(length, context_.stream);
      kernels::batch_mean(type_of(grad), raw(grad), layer.output_statistic.as<float>(), n, length,
                          context_.stream);
    } else {
      const Tensor dy = as_type(context_, grad, Precision::kFloat32);
      layer.output_statistic = gram_blocks({data(dy), layer.shape.rows, n, false}, double(n));
    }
  }

  void form_factors(std::size_t l, const FactorScales& scales) override {
    DeviceLayer& layer = layers_.at(l);
    if (layer.shape.conv) {
      const kernels::Im2colShape shape{layer.input[1],
                                       layer.input[2],
                                       layer.input[3],
                                       layer.geometry.kernel,
                                       layer.geometry.stride,
                                       layer.geometry.padding,
                                       layer.geometry.output_size(layer.input[2]),
                                       layer.geometry.output_size(layer.input[3])};
      const std::int64_t pixels = shape.out_h * shape.out_w;
      if (pixels != layer.out_pixels)
        throw Error("THOR layer " + std::to_string(l) + ": the input gives " +
                        std::to_string(pixels) + " output pixels, the output gradient " +
                        std::to_string(layer.out_pixels),
                    "THOR on cuda");
      const DeviceBuffer columns = floats(layer.shape.columns * pixels, context_.stream);
      kernels::im2col_hwc(layer.input_statistic.as<float>(), columns.as<float>(), shape,
                          context_.stream);
      layer.a =
          gram_blocks({columns.as<float>(), layer.shape.columns, pixels, true}, scales.a_scale);
      layer.g = gram_blocks({layer.output_statistic.as<float>(), layer.shape.rows, pixels, false},
                            scales.g_scale);
      layer.input_statistic = DeviceBuffer();
      layer.output_statistic = DeviceBuffer();
    } else {
      layer.a = std::move(layer.input_statistic);
      layer.g = std::move(layer.output_statistic);
      scale(layer.a, BlockLayout{layer.shape.columns}.storage_size(), scales.a_scale);
      scale(layer.g, BlockLayout{layer.shape.rows}.storage_size(), scales.g_scale);
    }
  }

  void invert(std::span<const InverseSettings> settings) override;
  void precondition(std::span<const Tensor* const> grads) override;

  std::vector<float> read(std::size_t l, KroneckerPart part) override {
    const DeviceBuffer& source = storage(l, part);
    std::vector<float> values(source.bytes() / sizeof(float));
    PARITY_CUDA_CHECK(cudaMemcpyAsync(values.data(), source.data(), source.bytes(),
                                      cudaMemcpyDeviceToHost, context_.stream));
    context_.synchronize();
    return values;
  }

  void write(std::size_t l, KroneckerPart part, std::span<const float> values) override {
    DeviceBuffer& target = storage(l, part);
    if (target.bytes() != values.size_bytes())
      throw Error("THOR layer " + std::to_string(l) + " keeps " +
                      std::to_string(target.bytes() / sizeof(float)) +
                      " values of this part, not " + std::to_string(values.size()),
                  "THOR on cuda");
    PARITY_CUDA_CHECK(cudaMemcpyAsync(target.data(), values.data(), values.size_bytes(),
                                      cudaMemcpyHostToDevice, context_.stream));
    context_.synchronize();  // `values` may go as soon as this returns
  }

 private:
  DeviceBuffer zeros(std::int64_t count) {
    DeviceBuffer buffer = floats(count, context_.stream);
    PARITY_CUDA_CHECK(cudaMemsetAsync(buffer.data(), 0, buffer.bytes(), context_.stream));
    return buffer;
  }

  void scale(DeviceBuffer& values, std::int64_t count, double factor) {
    const float alpha = static_cast<float>(factor);
    PARITY_CUBLAS_CHECK(cublasSscal(context_.cublas, as_int(count), &alpha, values.as<float>(), 1));
  }

  DeviceBuffer gram_blocks(const GramSource& m, double alpha);
  // out = grad's rows times G^-1's blocks (left) or its columns times A^-1's (right).
  void multiply_left(const float* grad, const DeviceBuffer& g_inverse, float* out,
                     std::int64_t rows, std::int64_t columns);
  void multiply_right(const float* grad, const DeviceBuffer& a_inverse, float* out,
                      std::int64_t rows, std::int64_t columns);
  DeviceBuffer& storage(std::size_t l, KroneckerPart part) {
    DeviceLayer& layer = layers_.at(l);
    switch (part) {
      case KroneckerPart::kInputStatistic:
        return layer.input_statistic;
      case KroneckerPart::kOutputStatistic:
        return layer.output_statistic;
      case KroneckerPart::kAInverse:
        return layer.a_inverse;
      case KroneckerPart::kGInverse:
        return layer.g_inverse;
    }
    throw Error("unknown THOR part", "THOR on cuda");
  }

  Context& context_;
  cusolverDnHandle_t solver_ = nullptr;
  std::vector<DeviceLayer> layers_;
};

// cuBLAS is column-major: a row-major [dim, length] matrix is its
// [length, dim] with leading dimension `length`, so block b's rows are
// columns there and the block is X^T X; a [length, dim] batch of samples is
// [dim, length] with leading dimension `dim`, and the block is X X^T. The
// full blocks are one strided batch, the last smaller one a call of its own.
DeviceBuffer CudaKroneckerEngine::gram_blocks(const GramSource& m, double alpha) {
  const BlockLayout layout{m.dim};
  DeviceBuffer out = floats(layout.storage_size(), context_.stream);
  const float a = static_cast<float>(alpha);
  const std::int64_t lead = m.rows_contiguous ? m.length : m.dim;
  const std::int64_t block_stride = m.rows_contiguous ? kThorBlockSize * m.length : kThorBlockSize;
  const cublasOperation_t first = m.rows_contiguous ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t second = m.rows_contiguous ? CUBLAS_OP_N : CUBLAS_OP_T;
  if (layout.full_blocks() > 0)
    PARITY_CUBLAS_CHECK(cublasSgemmStridedBatched(
        context_.cublas, first, second, as_int(kThorBlockSize), as_int(kThorBlockSize),
        as_int(m.length), &a, m.data, as_int(lead), block_stride, m.data, as_int(lead),
        block_stride, &kZero, out.as<float>(), as_int(kThorBlockSize), kBlockElements,
        as_int(layout.full_blocks())));
  if (layout.blocks() > layout.full_blocks()) {
    const std::int64_t b = layout.full_blocks(), size = layout.block_size(b);
    const float* rows = m.data + b * block_stride;
    PARITY_CUBLAS_CHECK(cublasSgemm(context_.cublas, first, second, as_int(size), as_int(size),
                                    as_int(m.length), &a, rows, as_int(lead), rows, as_int(lead),
                                    &kZero, out.as<float>() + layout.block_offset(b),
                                    as_int(size)));
  }
  return out;
}

// Every block of every layer's two factors as one batch of padded float64
// matrices: Cholesky L, then X = L^-1 from L X = I, then X^T X = (L L^T)^-1.
void CudaKroneckerEngine::invert(std::span<const InverseSettings> settings) {
  std::vector<kernels::DampedBlock> damped;
  std::vector<kernels::InverseBlock> targets;
  std::vector<std::pair<std::size_t, std::int64_t>> owners;  // (layer, block) of each
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    DeviceLayer& layer = layers_[l];
    if (!layer.a.data() || !layer.g.data())
      throw Error("THOR has no factors of " + settings[l].layer + " to invert", "THOR on cuda");
    for (const auto& [factor, inverse, dim] :
         {std::tuple{&layer.a, &layer.a_inverse, layer.shape.columns},
          std::tuple{&layer.g, &layer.g_inverse, layer.shape.rows}}) {
      const BlockLayout layout{dim};
      for (std::int64_t b = 0; b < layout.blocks(); ++b) {
        const auto size = static_cast<std::int32_t>(layout.block_size(b));
        damped.push_back({factor->as<float>() + layout.block_offset(b), size, settings[l].damping});
        targets.push_back({inverse->as<float>() + layout.block_offset(b), size, settings[l].scale});
        owners.emplace_back(l, b);
      }
    }
  }
  const auto count = static_cast<std::int64_t>(damped.size());
  const cudaStream_t stream = context_.stream;
  const std::size_t matrix_bytes =
      static_cast<std::size_t>(count * kBlockElements) * sizeof(double);
  DeviceBuffer factors(matrix_bytes, stream), solutions(matrix_bytes, stream),
      inverses(matrix_bytes, stream);
  const DeviceBuffer damped_table =
      copy_to_device(damped.data(), damped.size() * sizeof(damped[0]), stream);
  // Per block: 1 where it holds a NaN or an Inf, then cuSOLVER's info (the
  // order of the first minor that is not positive definite).
  const DeviceBuffer checks(2 * static_cast<std::size_t>(count) * sizeof(int), stream);
  PARITY_CUDA_CHECK(cudaMemsetAsync(checks.data(), 0, checks.bytes(), stream));
  kernels::pack_damped_blocks(damped_table.as<kernels::DampedBlock>(), count, factors.as<double>(),
                              solutions.as<double>(), checks.as<int>(), stream);
  std::vector<double*> factor_pointers, solution_pointers;
  for (std::int64_t b = 0; b < count; ++b) {
    factor_pointers.push_back(factors.as<double>() + b * kBlockElements);
    solution_pointers.push_back(solutions.as<double>() + b * kBlockElements);
  }
  const DeviceBuffer factor_table =
      copy_to_device(factor_pointers.data(), factor_pointers.size() * sizeof(double*), stream);
  const DeviceBuffer solution_table =
      copy_to_device(solution_pointers.data(), solution_pointers.size() * sizeof(double*), stream);
  const int n = as_int(kThorBlockSize);
  check_solver(
      cusolverDnDpotrfBatched(solver_, CUBLAS_FILL_MODE_LOWER, n, factor_table.as<double*>(), n,
                              checks.as<int>() + count, as_int(count)),
      "cusolverDnDpotrfBatched");
  std::vector<int> check(2 * static_cast<std::size_t>(count));
  PARITY_CUDA_CHECK(
      cudaMemcpyAsync(check.data(), checks.data(), checks.bytes(), cudaMemcpyDeviceToHost, stream));
  context_.synchronize();
  for (std::int64_t b = 0; b < count; ++b)
    if (check[b] != 0 || check[count + b] != 0) {
      const auto& [l, block] = owners[b];
      throw Error("the damped curvature factor of " + settings[l].layer + " (block " +
                      std::to_string(block) + ", " + std::to_string(damped[b].size) +
                      " rows) is not positive definite",
                  "THOR",
                  "a factor held NaN or Inf (check the loss and loss_scale), or damping_init is "
                  "not positive");
    }
  const double one = 1.0, zero = 0.0;
  PARITY_CUBLAS_CHECK(cublasDtrsmBatched(context_.cublas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER,
                                         CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, n, &one,
                                         factor_table.as<const double*>(), n,
                                         solution_table.as<double*>(), n, as_int(count)));
  PARITY_CUBLAS_CHECK(cublasDgemmStridedBatched(
      context_.cublas, CUBLAS_OP_T, CUBLAS_OP_N, n, n, n, &one, solutions.as<double>(), n,
      kBlockElements, solutions.as<double>(), n, kBlockElements, &zero, inverses.as<double>(), n,
      kBlockElements, as_int(count)));
  const DeviceBuffer target_table =
      copy_to_device(targets.data(), targets.size() * sizeof(targets[0]), stream);
  kernels::unpack_inverse_blocks(target_table.as<kernels::InverseBlock>(), count,
                                 inverses.as<double>(), stream);
  for (DeviceLayer& layer : layers_) {
    layer.a = DeviceBuffer();
    layer.g = DeviceBuffer();
  }
}

// A row-major [rows, columns] gradient is cuBLAS's [columns, rows]: a band
// of rows there is a band of columns, multiplied from the right by the
// (symmetric) block of G^-1.
void CudaKroneckerEngine::multiply_left(const float* grad, const DeviceBuffer& g_inverse,
                                        float* out, std::int64_t rows, std::int64_t columns) {
  const BlockLayout layout{rows};
  const std::int64_t band = kThorBlockSize * columns;
  if (layout.full_blocks() > 0)
    PARITY_CUBLAS_CHECK(cublasSgemmStridedBatched(
        context_.cublas, CUBLAS_OP_N, CUBLAS_OP_N, as_int(columns), as_int(kThorBlockSize),
        as_int(kThorBlockSize), &kOne, grad, as_int(columns), band, g_inverse.as<float>(),
        as_int(kThorBlockSize), kBlockElements, &kZero, out, as_int(columns), band,
        as_int(layout.full_blocks())));
  if (layout.blocks() > layout.full_blocks()) {
    const std::int64_t b = layout.full_blocks(), size = layout.block_size(b);
    PARITY_CUBLAS_CHECK(cublasSgemm(context_.cublas, CUBLAS_OP_N, CUBLAS_OP_N, as_int(columns),
                                    as_int(size), as_int(size), &kOne, grad + b * band,
                                    as_int(columns), g_inverse.as<float>() + layout.block_offset(b),
                                    as_int(size), &kZero, out + b * band, as_int(columns)));
  }
}

// A band of columns of the row-major gradient is a band of rows of cuBLAS's
// view, multiplied from the left by the block of A^-1.
void CudaKroneckerEngine::multiply_right(const float* grad, const DeviceBuffer& a_inverse,
                                         float* out, std::int64_t rows, std::int64_t columns) {
  const BlockLayout layout{columns};
  if (layout.full_blocks() > 0)
    PARITY_CUBLAS_CHECK(cublasSgemmStridedBatched(
        context_.cublas, CUBLAS_OP_N, CUBLAS_OP_N, as_int(kThorBlockSize), as_int(rows),
        as_int(kThorBlockSize), &kOne, a_inverse.as<float>(), as_int(kThorBlockSize),
        kBlockElements, grad, as_int(columns), kThorBlockSize, &kZero, out, as_int(columns),
        kThorBlockSize, as_int(layout.full_blocks())));
  if (layout.blocks() > layout.full_blocks()) {
    const std::int64_t b = layout.full_blocks(), size = layout.block_size(b),
                       start = layout.block_start(b);
    PARITY_CUBLAS_CHECK(cublasSgemm(
        context_.cublas, CUBLAS_OP_N, CUBLAS_OP_N, as_int(size), as_int(rows), as_int(size), &kOne,
        a_inverse.as<float>() + layout.block_offset(b), as_int(size), grad + start, as_int(columns),
        &kZero, out + start, as_int(columns)));
  }
}

// A convolution's gradient is stored [out, kh, kw, in] (NHWC filters); THOR's
// factors are in the logical [out, in, kh, kw] order, so it is permuted
// there and back around the two products.
void CudaKroneckerEngine::precondition(std::span<const Tensor* const> grads) {
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    const DeviceLayer& layer = layers_[l];
    const Tensor& grad = *grads[l];
    const std::int64_t rows = layer.shape.rows, columns = layer.shape.columns;
    const DeviceBuffer left = floats(rows * columns, context_.stream);
    if (!layer.shape.conv) {
      multiply_left(data(grad), layer.g_inverse, left.as<float>(), rows, columns);
      multiply_right(left.as<float>(), layer.a_inverse, data(grad), rows, columns);
      continue;
    }
    const Dims& d = grad.dims();  // [out, in, kh, kw]
    const DeviceBuffer logical = floats(rows * columns, context_.stream);
    kernels::nhwc_to_nchw(data(grad), logical.as<float>(), d[0], d[1], d[2], d[3], context_.stream);
    multiply_left(logical.as<float>(), layer.g_inverse, left.as<float>(), rows, columns);
    multiply_right(left.as<float>(), layer.a_inverse, logical.as<float>(), rows, columns);
    kernels::nchw_to_nhwc(logical.as<float>(), data(grad), d[0], d[1], d[2], d[3], context_.stream);
  }
}

}  // namespace

std::unique_ptr<KroneckerEngine> make_kronecker_engine(
    Context& context, std::span<const KroneckerLayerShape> layers) {
  return std::make_unique<CudaKroneckerEngine>(context, layers);
}

}  // namespace parity::trainer::cuda
