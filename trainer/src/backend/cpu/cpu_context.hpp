// What every CPU op shares: the oneDNN engine and stream, a pool of reusable
// buffers (a training step allocates the same sizes every time, so nothing is
// returned to the system between steps), the tensor type that wraps a
// dnnl::memory, and the reorder helper that counts (and, when tracing, records)
// every layout conversion.
#pragma once

#include <dnnl.hpp>

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "parity/profiler/recorder.hpp"
#include "parity/trainer/backend/backend.hpp"

namespace parity::trainer::cpu {

class WeightMirror;

class BufferPool {
 public:
  // A buffer of at least `bytes`, 64-byte aligned; it returns to the pool
  // when the last holder lets go.
  std::shared_ptr<std::byte> take(std::size_t bytes);
  std::size_t bytes_held() const;

 private:
  struct Shared {
    std::mutex mutex;
    std::multimap<std::size_t, std::byte*> free;
    std::size_t held = 0;
    ~Shared();
  };
  std::shared_ptr<Shared> shared_ = std::make_shared<Shared>();
};

struct Context {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  BufferPool pool;
  BackendStats stats;
  profiler::Recorder* recorder = nullptr;  // set: every reorder is a kOp range
  profiler::NameId reorder_name = profiler::intern("reorder");
};

class CpuTensor : public TensorImpl {
 public:
  CpuTensor(Context& context, Dims dims, const dnnl::memory::desc& desc);
  // Another description of the same bytes.
  CpuTensor(const CpuTensor& viewed, Dims dims, const dnnl::memory::desc& desc);
  ~CpuTensor() override;
  const dnnl::memory::desc& desc() const { return desc_; }
  dnnl::memory& memory() { return memory_; }
  float* data() { return reinterpret_cast<float*>(buffer_.get()); }
  std::size_t bytes() const { return desc_.get_size(); }

  // Weights only: a second copy in the layout backward-data wants, kept in
  // step by every write to the weights (see weight_mirror.hpp).
  WeightMirror* mirror() const { return mirror_.get(); }
  // Parameters' conversions count as weight reorders, everything else's as activation reorders.
  bool is_parameter() const { return is_parameter_; }
  void mark_parameter() { is_parameter_ = true; }
  void set_mirror(std::unique_ptr<WeightMirror> mirror);
  // Moves the tensor's bytes to `storage` (at least bytes() long), which it
  // then shares with whoever holds it (a contiguous gradient buffer).
  void move_to(std::shared_ptr<std::byte> storage);

 private:
  dnnl::memory::desc desc_;
  std::shared_ptr<std::byte> buffer_;
  dnnl::memory memory_;
  std::unique_ptr<WeightMirror> mirror_;
  bool is_parameter_ = false;
};

Tensor make_tensor(Context& context, const Dims& dims, const dnnl::memory::desc& desc);
// `tensor`'s bytes described as `dims` in `desc` (which must take the same bytes).
Tensor view_as(const Tensor& tensor, const Dims& dims, const dnnl::memory::desc& desc);
CpuTensor& cpu_tensor(const Tensor& tensor);
dnnl::memory& mem(const Tensor& tensor);

dnnl::memory::dims to_dnnl(const Dims& dims);
// The plain layout of `dims`: x, nc, nchw (oihw for weights).
dnnl::memory::desc plain_desc(const Dims& dims);

enum class ReorderKind { kActivation, kWeight };
void reorder(Context& context, dnnl::memory& from, dnnl::memory& to, ReorderKind kind);
// `tensor` in layout `want`: the tensor itself when it already is, otherwise a
// converted copy (counted as an activation reorder).
Tensor in_layout(Context& context, const Tensor& tensor, const dnnl::memory::desc& want);

// Whether oneDNN made `pd` with a reference kernel (its implementation name
// starts with "ref"): correct, but often 100 times slower than a JIT kernel.
bool is_reference_kernel(const dnnl::primitive_desc_base& pd);
// Counts `pd` in the context's stats.reference_kernels when it is one.
void note_reference_kernel(Context& context, const dnnl::primitive_desc_base& pd);

// Runs one primitive on the context's stream and waits for it.
void execute(Context& context, const dnnl::primitive& primitive,
             const std::unordered_map<int, dnnl::memory>& args);

// Parameter tensors (value, gradient, momentum) in one layout, value zeroed.
ParamTensors make_param(Context& context, const Dims& dims, const dnnl::memory::desc& desc);

}  // namespace parity::trainer::cpu
