// Real GPU work for the CUPTI collector's [gpu] test: copies, a memset, plain
// kernel launches and a CUDA Graph of kernels on one stream.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace parity::test {

// Why this machine cannot run GPU tests (no driver, no device), or "".
std::string gpu_unavailable_reason();

class GpuWork {
 public:
  explicit GpuWork(std::size_t floats);
  ~GpuWork();
  GpuWork(const GpuWork&) = delete;
  GpuWork& operator=(const GpuWork&) = delete;

  void upload();                       // one host-to-device copy
  void clear();                        // one memset
  void scale(float factor);            // one kernel launch
  void graph_of_kernels(int kernels);  // one cudaGraphLaunch of `kernels` scale kernels
  float download_first();              // one device-to-host copy, then a stream sync
  void synchronize();                  // cudaStreamSynchronize

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace parity::test
