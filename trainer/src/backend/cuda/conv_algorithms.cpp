#include "conv_algorithms.hpp"

#include <array>

#include "parity/core/error.hpp"

namespace parity::trainer::cuda {
namespace {

bool uses_tensor_cores(cudnnMathType_t math) {
  return math == CUDNN_TENSOR_OP_MATH || math == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
}

// The first usable result (cuDNN sorts by time, or by expected time). A float32 search
// asked for FMA math keeps to it: a tensor-op result there would be TF32.
template <class Perf>
ConvAlgorithm choose(const Context& context, cudnnMathType_t requested, const Perf* results,
                     int count, const std::string& key) {
  for (int i = 0; i < count; ++i) {
    const Perf& r = results[i];
    if (r.status != CUDNN_STATUS_SUCCESS || r.memory > context.options.workspace_limit) continue;
    if (context.options.deterministic && r.determinism != CUDNN_DETERMINISTIC) continue;
    if (requested == CUDNN_FMA_MATH && uses_tensor_cores(r.mathType)) continue;
    return {static_cast<int>(r.algo), r.memory, r.mathType};
  }
  throw Error("cuDNN has no " + std::string(context.options.deterministic ? "deterministic " : "") +
                  "algorithm for the convolution " + key + " within a workspace of " +
                  std::to_string(context.options.workspace_limit >> 20) + " MiB",
              "cuda backend",
              context.options.deterministic ? "train without deterministic, or raise the workspace"
                                            : "raise the workspace limit");
}

// Looks `key` up, or benchmarks with `find(workspace, bytes, results, &count)`.
// Deterministic runs rank by `heuristic(results, &count)` instead, without
// timing: timings vary, and two runs (or two ranks) would pick different
// algorithms, with different rounding.
template <class Perf, int kCount, class Find, class Heuristic>
ConvAlgorithm cached(Context& context, const ConvolutionDescriptor& conv, const std::string& key,
                     Find find, Heuristic heuristic) {
  const auto known = context.conv_algorithms.find(key);
  if (known != context.conv_algorithms.end()) return known->second;
  std::array<Perf, kCount> results{};
  int returned = 0;
  const std::size_t limit = context.options.workspace_limit;
  conv.set_math(conv.requested_math());  // an earlier call may have left another
  if (context.options.deterministic)
    heuristic(results.data(), &returned);
  else
    find(context.workspace(limit), limit, results.data(), &returned);
  const ConvAlgorithm chosen =
      choose(context, conv.requested_math(), results.data(), returned, key);
  context.conv_algorithms.emplace(key, chosen);
  return chosen;
}

}  // namespace

ConvAlgorithm forward_algorithm(Context& context, const ConvDescriptors& d, const void* x,
                                const void* w, void* y) {
  return cached<cudnnConvolutionFwdAlgoPerf_t, CUDNN_CONVOLUTION_FWD_ALGO_COUNT>(
      context, d.conv, "forward " + d.key,
      [&](void* ws, std::size_t bytes, auto* results, int* returned) {
        PARITY_CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithmEx(
            context.cudnn, d.x.get(), x, d.w.get(), w, d.conv.get(), d.y.get(), y,
            CUDNN_CONVOLUTION_FWD_ALGO_COUNT, returned, results, ws, bytes));
      },
      [&](auto* results, int* returned) {
        PARITY_CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(
            context.cudnn, d.x.get(), d.w.get(), d.conv.get(), d.y.get(),
            CUDNN_CONVOLUTION_FWD_ALGO_COUNT, returned, results));
      });
}

ConvAlgorithm backward_data_algorithm(Context& context, const ConvDescriptors& d, const void* w,
                                      const void* dy, void* dx) {
  return cached<cudnnConvolutionBwdDataAlgoPerf_t, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT>(
      context, d.conv, "backward data " + d.key,
      [&](void* ws, std::size_t bytes, auto* results, int* returned) {
        PARITY_CUDNN_CHECK(cudnnFindConvolutionBackwardDataAlgorithmEx(
            context.cudnn, d.w.get(), w, d.y.get(), dy, d.conv.get(), d.x.get(), dx,
            CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, returned, results, ws, bytes));
      },
      [&](auto* results, int* returned) {
        PARITY_CUDNN_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(
            context.cudnn, d.w.get(), d.y.get(), d.conv.get(), d.x.get(),
            CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, returned, results));
      });
}

ConvAlgorithm backward_filter_algorithm(Context& context, const ConvDescriptors& d, const void* x,
                                        const void* dy, void* dw) {
  return cached<cudnnConvolutionBwdFilterAlgoPerf_t, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT>(
      context, d.conv, "backward filter " + d.key,
      [&](void* ws, std::size_t bytes, auto* results, int* returned) {
        PARITY_CUDNN_CHECK(cudnnFindConvolutionBackwardFilterAlgorithmEx(
            context.cudnn, d.x.get(), x, d.y.get(), dy, d.conv.get(), d.w.get(), dw,
            CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, returned, results, ws, bytes));
      },
      [&](auto* results, int* returned) {
        PARITY_CUDNN_CHECK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
            context.cudnn, d.x.get(), d.y.get(), d.conv.get(), d.w.get(),
            CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, returned, results));
      });
}

}  // namespace parity::trainer::cuda
