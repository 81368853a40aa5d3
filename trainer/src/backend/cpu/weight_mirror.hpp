// WeightMirror: a convolution weight kept in a second layout.
//
// On AVX-512 oneDNN's forward and backward-weights convolutions want weights
// as OIhw16i16o, while backward-data wants the 16x16 inner block the other way
// round (OIhw16o16i, or IOhw16o16i for 1x1). Rather than reorder the weights
// before every backward-data pass, the optimizer writes each updated weight to
// both layouts in the same pass over memory: one extra store per element and
// no reorder primitive in a steady-state step. Only the pattern oneDNN uses is
// handled (both layouts blocked twice by the same square block over O and I);
// for any other pair `make` returns nullptr and the op reorders instead.
#pragma once

#include <dnnl.hpp>

#include <cstdint>
#include <memory>
#include <vector>

#include "cpu_context.hpp"
#include "sgd_kernel.hpp"

namespace parity::trainer::cpu {

class WeightMirror {
 public:
  static std::unique_ptr<WeightMirror> make(Context& context, const dnnl::memory::desc& master,
                                            const dnnl::memory::desc& mirror);

  dnnl::memory& memory() { return memory_; }
  // Copies the whole master into the mirror (after the weights were set).
  void refresh(const float* master);
  // SGD on the master (w, g, buf in the master layout), writing the mirror too.
  void sgd_update(float* w, const float* g, float* buf, const SgdCoefficients& c);

 private:
  WeightMirror() = default;

  std::int64_t block_ = 0;                  // the square inner block's side
  bool transposed_ = false;                 // inner blocks are stored the other way round
  std::vector<std::int64_t> master_blocks_;  // offset of each block in the master
  std::vector<std::int64_t> mirror_blocks_;  // offset of the same block in the mirror
  std::shared_ptr<std::byte> buffer_;
  dnnl::memory memory_;
};

}  // namespace parity::trainer::cpu
