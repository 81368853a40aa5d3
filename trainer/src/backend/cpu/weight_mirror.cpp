#include "weight_mirror.hpp"

#include <cstring>

namespace parity::trainer::cpu {
namespace {

// The square block side when `desc` is blocked twice by it over dims 0 and 1.
std::int64_t square_block(const dnnl::memory::desc& desc) {
  const auto& d = desc.data;
  if (d.format_kind != dnnl_blocked || d.ndims != 4) return 0;
  const auto& b = d.format_desc.blocking;
  if (b.inner_nblks != 2 || b.inner_blks[0] != b.inner_blks[1]) return 0;
  const bool over_o_and_i = (b.inner_idxs[0] == 0 && b.inner_idxs[1] == 1) ||
                            (b.inner_idxs[0] == 1 && b.inner_idxs[1] == 0);
  return over_o_and_i ? b.inner_blks[0] : 0;
}

std::vector<std::int64_t> block_offsets(const dnnl::memory::desc& desc, std::int64_t block) {
  const auto& d = desc.data;
  const auto* s = d.format_desc.blocking.strides;
  const std::int64_t ob = d.padded_dims[0] / block, ib = d.padded_dims[1] / block;
  std::vector<std::int64_t> offsets;
  offsets.reserve(static_cast<std::size_t>(ob * ib * d.dims[2] * d.dims[3]));
  for (std::int64_t o = 0; o < ob; ++o)
    for (std::int64_t i = 0; i < ib; ++i)
      for (std::int64_t h = 0; h < d.dims[2]; ++h)
        for (std::int64_t w = 0; w < d.dims[3]; ++w)
          offsets.push_back(d.offset0 + o * s[0] + i * s[1] + h * s[2] + w * s[3]);
  return offsets;
}

}  // namespace

std::unique_ptr<WeightMirror> WeightMirror::make(Context& context,
                                                 const dnnl::memory::desc& master,
                                                 const dnnl::memory::desc& mirror) {
  const std::int64_t block = square_block(master);
  if (block == 0 || square_block(mirror) != block) return nullptr;
  for (int i = 0; i < 4; ++i)
    if (master.data.padded_dims[i] != mirror.data.padded_dims[i]) return nullptr;
  std::unique_ptr<WeightMirror> result(new WeightMirror());
  result->block_ = block;
  result->transposed_ = master.data.format_desc.blocking.inner_idxs[0] !=
                        mirror.data.format_desc.blocking.inner_idxs[0];
  result->master_blocks_ = block_offsets(master, block);
  result->mirror_blocks_ = block_offsets(mirror, block);
  result->buffer_ = context.pool.take(mirror.get_size());
  result->memory_ = dnnl::memory(mirror, context.engine, result->buffer_.get());
  return result;
}

void WeightMirror::refresh(const float* master) {
  auto* out = static_cast<float*>(memory_.get_data_handle());
  const std::int64_t b = block_, blocks = static_cast<std::int64_t>(master_blocks_.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < blocks; ++k) {
    const float* from = master + master_blocks_[k];
    float* to = out + mirror_blocks_[k];
    for (std::int64_t r = 0; r < b; ++r)
      for (std::int64_t c = 0; c < b; ++c) to[transposed_ ? c * b + r : r * b + c] = from[r * b + c];
  }
}

void WeightMirror::sgd_update(float* w, const float* g, float* buf, const SgdCoefficients& c) {
  auto* out = static_cast<float*>(memory_.get_data_handle());
  const std::int64_t b = block_, blocks = static_cast<std::int64_t>(master_blocks_.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < blocks; ++k) {
    const std::int64_t base = master_blocks_[k];
    float* to = out + mirror_blocks_[k];
    for (std::int64_t r = 0; r < b; ++r)
      for (std::int64_t col = 0; col < b; ++col) {
        const std::int64_t at = base + r * b + col;
        w[at] = c.update(w[at], g[at], buf[at]);
        to[transposed_ ? col * b + r : r * b + col] = w[at];
      }
  }
}

}  // namespace parity::trainer::cpu
