#include "cpu_context.hpp"

#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <string_view>

#include "parity/core/error.hpp"
#include "weight_mirror.hpp"

namespace parity::trainer {

std::int64_t element_count(const Dims& dims) {
  std::int64_t count = 1;
  for (const auto d : dims) count *= d;
  return count;
}

std::string dims_text(const Dims& dims) {
  std::string text = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + "]";
}

namespace cpu {

constexpr std::size_t kAlignment = 64;

BufferPool::Shared::~Shared() {
  for (auto& [size, block] : free) std::free(block);
}

std::shared_ptr<std::byte> BufferPool::take(std::size_t bytes) {
  bytes = (std::max<std::size_t>(bytes, 1) + kAlignment - 1) / kAlignment * kAlignment;
  std::byte* block = nullptr;
  {
    std::lock_guard lock(shared_->mutex);
    // Exact sizes only: a step asks for the same sizes every time, and a
    // larger block handed out here would be missing for its own size later.
    if (const auto it = shared_->free.find(bytes); it != shared_->free.end()) {
      block = it->second;
      shared_->free.erase(it);
    }
  }
  if (!block) {
    block = static_cast<std::byte*>(std::aligned_alloc(kAlignment, bytes));
    if (!block) throw std::bad_alloc();
    std::lock_guard lock(shared_->mutex);
    shared_->held += bytes;
  }
  return std::shared_ptr<std::byte>(block, [shared = shared_, bytes](std::byte* returned) {
    std::lock_guard lock(shared->mutex);
    shared->free.emplace(bytes, returned);
  });
}

std::size_t BufferPool::bytes_held() const {
  std::lock_guard lock(shared_->mutex);
  return shared_->held;
}

CpuTensor::CpuTensor(Context& context, Dims dims, const dnnl::memory::desc& desc)
    : TensorImpl(std::move(dims)),
      desc_(desc),
      buffer_(context.pool.take(desc.get_size())),
      memory_(desc, context.engine, buffer_.get()) {}

CpuTensor::CpuTensor(const CpuTensor& viewed, Dims dims, const dnnl::memory::desc& desc)
    : TensorImpl(std::move(dims)),
      desc_(desc),
      buffer_(viewed.buffer_),
      memory_(desc, viewed.memory_.get_engine(), buffer_.get()) {}

CpuTensor::~CpuTensor() = default;

void CpuTensor::set_mirror(std::unique_ptr<WeightMirror> mirror) { mirror_ = std::move(mirror); }

void CpuTensor::move_to(std::shared_ptr<std::byte> storage) {
  std::memcpy(storage.get(), buffer_.get(), bytes());
  buffer_ = std::move(storage);
  memory_.set_data_handle(buffer_.get());
}

Tensor make_tensor(Context& context, const Dims& dims, const dnnl::memory::desc& desc) {
  return Tensor(std::make_shared<CpuTensor>(context, dims, desc));
}

Tensor view_as(const Tensor& tensor, const Dims& dims, const dnnl::memory::desc& desc) {
  const CpuTensor& viewed = cpu_tensor(tensor);
  if (desc.get_size() != viewed.bytes())
    throw Error("a view of " + dims_text(tensor.dims()) + " as " + dims_text(dims) +
                    " would not cover the same bytes",
                "cpu backend");
  return Tensor(std::make_shared<CpuTensor>(viewed, dims, desc));
}

CpuTensor& cpu_tensor(const Tensor& tensor) {
  if (!tensor.defined()) throw Error("an undefined tensor reached the CPU backend", "cpu backend");
  return tensor.impl<CpuTensor>();
}

dnnl::memory& mem(const Tensor& tensor) { return cpu_tensor(tensor).memory(); }

dnnl::memory::dims to_dnnl(const Dims& dims) { return dnnl::memory::dims(dims.begin(), dims.end()); }

dnnl::memory::desc plain_desc(const Dims& dims) {
  using tag = dnnl::memory::format_tag;
  static const tag kTags[] = {tag::undef, tag::a, tag::ab, tag::abc, tag::abcd, tag::abcde};
  if (dims.empty() || dims.size() > 5)
    throw Error("no plain layout for a tensor of " + std::to_string(dims.size()) + " dimensions",
                "cpu backend");
  return {to_dnnl(dims), dnnl::memory::data_type::f32, kTags[dims.size()]};
}

void reorder(Context& context, dnnl::memory& from, dnnl::memory& to, ReorderKind kind) {
  std::optional<profiler::Scope> range;
  if (context.recorder)
    range.emplace(*context.recorder, context.reorder_name, profiler::Category::kOp);
  dnnl::reorder(from, to).execute(context.stream, from, to);
  context.stream.wait();
  (kind == ReorderKind::kWeight ? context.stats.weight_reorders
                                : context.stats.activation_reorders)++;
}

Tensor in_layout(Context& context, const Tensor& tensor, const dnnl::memory::desc& want) {
  CpuTensor& have = cpu_tensor(tensor);
  if (have.desc() == want) return tensor;
  Tensor converted = make_tensor(context, tensor.dims(), want);
  reorder(context, have.memory(), mem(converted), ReorderKind::kActivation);
  return converted;
}

bool is_reference_kernel(const dnnl::primitive_desc_base& pd) {
  return std::string_view(pd.impl_info_str()).starts_with("ref");
}

void note_reference_kernel(Context& context, const dnnl::primitive_desc_base& pd) {
  if (is_reference_kernel(pd)) ++context.stats.reference_kernels;
}

void execute(Context& context, const dnnl::primitive& primitive,
             const std::unordered_map<int, dnnl::memory>& args) {
  primitive.execute(context.stream, args);
  context.stream.wait();
}

ParamTensors make_param(Context& context, const Dims& dims, const dnnl::memory::desc& desc) {
  ParamTensors param{make_tensor(context, dims, desc), make_tensor(context, dims, desc),
                     make_tensor(context, dims, desc)};
  for (const Tensor* t : {&param.value, &param.grad, &param.momentum}) {
    std::memset(cpu_tensor(*t).data(), 0, cpu_tensor(*t).bytes());
    cpu_tensor(*t).mark_parameter();
  }
  return param;
}

}  // namespace cpu
}  // namespace parity::trainer
