// The sign bits of a tensor (importers/grad_probe/sign_bits.hpp: bit i is 1
// where logical element i is > 0) read where oneDNN keeps it, in whatever
// layout, without converting a copy first. For the gradient-sign probe: a
// reorder of a blocked convolution weight into the plain layout, oneDNN's
// way, took 90% of the probe's time, and the probe's budget is 5% of a step.
#pragma once

#include <dnnl.hpp>

#include <cstdint>
#include <span>

namespace parity::trainer::cpu {

// `data` holds a float32 tensor laid out as `desc` (strided or blocked,
// padding allowed); `words` holds importers::sign_words(its logical element
// count) words, every one of which is overwritten.
void pack_signs_in_layout(const dnnl::memory::desc& desc, const float* data,
                          std::span<std::uint64_t> words);

}  // namespace parity::trainer::cpu
