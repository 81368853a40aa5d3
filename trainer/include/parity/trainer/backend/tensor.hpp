// Tensor: a handle to memory that a backend owns, in whatever layout the
// backend chose for it (oneDNN's blocked layouts on CPU). Models and
// optimizers never look inside: they pass tensors from one op to the next and
// ask the backend for host copies, which are always in the plain logical
// layout (NCHW activations, OIHW convolution weights, [out, in] matrices).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace parity::trainer {

using Dims = std::vector<std::int64_t>;

std::int64_t element_count(const Dims& dims);
std::string dims_text(const Dims& dims);  // "[128, 64, 32, 32]"

class TensorImpl {
 public:
  explicit TensorImpl(Dims dims) : dims_(std::move(dims)) {}
  virtual ~TensorImpl() = default;
  const Dims& dims() const { return dims_; }

 private:
  Dims dims_;
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return impl_ != nullptr; }
  const Dims& dims() const { return impl_->dims(); }
  std::int64_t element_count() const { return trainer::element_count(dims()); }
  // The backend's own view of the tensor; only the backend that made it may call this.
  template <class Impl>
  Impl& impl() const {
    return static_cast<Impl&>(*impl_);
  }

 private:
  std::shared_ptr<TensorImpl> impl_;
};

}  // namespace parity::trainer
