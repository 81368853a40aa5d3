#include "gpu_work.hpp"

#include <cuda_runtime.h>

#include <stdexcept>
#include <vector>

namespace parity::test {
namespace {

__global__ void scale_kernel(float* data, std::size_t n, float factor) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) data[i] *= factor;
}

void check(cudaError_t result, const char* call) {
  if (result != cudaSuccess)
    throw std::runtime_error(std::string(call) + ": " + cudaGetErrorString(result));
}

#define CHECK_CUDA(call) check((call), #call)

}  // namespace

std::string gpu_unavailable_reason() {
  int devices = 0;
  const cudaError_t result = cudaGetDeviceCount(&devices);
  if (result != cudaSuccess) return std::string("no CUDA driver: ") + cudaGetErrorString(result);
  if (devices == 0) return "no CUDA device";
  return {};
}

struct GpuWork::Impl {
  std::size_t n = 0;
  float* device = nullptr;
  std::vector<float> host;
  cudaStream_t stream = nullptr;
  cudaGraphExec_t graph = nullptr;
  int graph_kernels = 0;
};

GpuWork::GpuWork(std::size_t floats) : impl_(std::make_unique<Impl>()) {
  impl_->n = floats;
  impl_->host.assign(floats, 1.0f);
  CHECK_CUDA(cudaStreamCreateWithFlags(&impl_->stream, cudaStreamNonBlocking));
  CHECK_CUDA(cudaMalloc(&impl_->device, floats * sizeof(float)));
}

GpuWork::~GpuWork() {
  if (impl_->graph) cudaGraphExecDestroy(impl_->graph);
  cudaFree(impl_->device);
  cudaStreamDestroy(impl_->stream);
}

void GpuWork::upload() {
  CHECK_CUDA(cudaMemcpyAsync(impl_->device, impl_->host.data(), impl_->n * sizeof(float),
                             cudaMemcpyHostToDevice, impl_->stream));
}

void GpuWork::clear() {
  CHECK_CUDA(cudaMemsetAsync(impl_->device, 0, impl_->n * sizeof(float), impl_->stream));
}

void GpuWork::scale(float factor) {
  const unsigned blocks = static_cast<unsigned>((impl_->n + 255) / 256);
  scale_kernel<<<blocks, 256, 0, impl_->stream>>>(impl_->device, impl_->n, factor);
  CHECK_CUDA(cudaGetLastError());
}

void GpuWork::graph_of_kernels(int kernels) {
  if (!impl_->graph || impl_->graph_kernels != kernels) {
    if (impl_->graph) CHECK_CUDA(cudaGraphExecDestroy(impl_->graph));
    cudaGraph_t graph = nullptr;
    CHECK_CUDA(cudaStreamBeginCapture(impl_->stream, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < kernels; ++i) scale(1.0f);
    CHECK_CUDA(cudaStreamEndCapture(impl_->stream, &graph));
    CHECK_CUDA(cudaGraphInstantiate(&impl_->graph, graph, 0));
    CHECK_CUDA(cudaGraphDestroy(graph));
    impl_->graph_kernels = kernels;
  }
  CHECK_CUDA(cudaGraphLaunch(impl_->graph, impl_->stream));
}

float GpuWork::download_first() {
  CHECK_CUDA(cudaMemcpyAsync(impl_->host.data(), impl_->device, impl_->n * sizeof(float),
                             cudaMemcpyDeviceToHost, impl_->stream));
  synchronize();
  return impl_->host.front();
}

void GpuWork::synchronize() { CHECK_CUDA(cudaStreamSynchronize(impl_->stream)); }

}  // namespace parity::test
