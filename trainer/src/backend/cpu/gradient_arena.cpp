#include "gradient_arena.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

#include "cpu_context.hpp"

namespace parity::trainer::cpu {
namespace {

constexpr std::size_t kAlignment = 64;

std::size_t aligned(std::size_t bytes) {
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

}  // namespace

std::vector<std::span<float>> move_gradients_together(std::span<ParamTensors* const> params) {
  std::size_t total = 0;
  for (const ParamTensors* param : params) total += aligned(cpu_tensor(param->grad).bytes());
  void* raw = std::aligned_alloc(kAlignment, std::max<std::size_t>(total, kAlignment));
  if (!raw) throw std::bad_alloc();
  std::memset(raw, 0, total);
  const std::shared_ptr<std::byte> arena(static_cast<std::byte*>(raw),
                                         [](std::byte* p) { std::free(p); });

  std::vector<std::span<float>> spans;
  spans.reserve(params.size());
  std::size_t offset = 0;
  for (ParamTensors* param : params) {
    CpuTensor& grad = cpu_tensor(param->grad);
    const std::size_t bytes = grad.bytes();
    // The aliasing constructor: each gradient keeps the whole arena alive.
    grad.move_to(std::shared_ptr<std::byte>(arena, arena.get() + offset));
    spans.emplace_back(reinterpret_cast<float*>(arena.get() + offset), bytes / sizeof(float));
    offset += aligned(bytes);
  }
  return spans;
}

}  // namespace parity::trainer::cpu
