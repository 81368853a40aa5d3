#include "parity/trainer/dist/gradient_reducer.hpp"

#include <string>

#include "parity/core/error.hpp"

namespace parity::trainer {

GradientReducer::GradientReducer(Communicator& communicator, Backend& backend,
                                 const std::vector<Parameter>& parameters,
                                 std::vector<GradientBucket> buckets, profiler::Recorder* recorder)
    : communicator_(communicator), recorder_(recorder), buckets_(std::move(buckets)) {
  std::vector<ParamTensors*> tensors;
  for (const Parameter& p : parameters) tensors.push_back(p.tensors);
  const std::vector<std::span<float>> grads = backend.contiguous_gradients(tensors);
  bucket_of_.assign(parameters.size(), 0);
  std::uint32_t expected_first = 0;
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    const GradientBucket& bucket = buckets_[b];
    if (bucket.first != expected_first || bucket.last < bucket.first ||
        bucket.last >= parameters.size())
      throw Error("gradient bucket " + std::to_string(b) + " (parameters " +
                      std::to_string(bucket.first) + ".." + std::to_string(bucket.last) +
                      ") does not continue the buckets before it",
                  "allreduce_split", "buckets must cover the parameters in order");
    expected_first = bucket.last + 1;
    float* begin = grads[bucket.first].data();
    float* end = grads[bucket.last].data() + grads[bucket.last].size();
    messages_.emplace_back(begin, static_cast<std::size_t>(end - begin));
    for (std::uint32_t i = bucket.first; i <= bucket.last; ++i)
      bucket_of_[i] = static_cast<std::uint32_t>(b);
  }
  if (expected_first != parameters.size())
    throw Error("the gradient buckets cover " + std::to_string(expected_first) + " of " +
                    std::to_string(parameters.size()) + " parameters",
                "allreduce_split", "buckets must cover every parameter");
  pending_.resize(buckets_.size());
  for (std::size_t b = 0; b < buckets_.size(); ++b)
    pending_[b] = buckets_[b].last - buckets_[b].first + 1;
  next_release_ = static_cast<std::int64_t>(buckets_.size()) - 1;
  thread_ = std::thread([this] { communicate(); });
}

GradientReducer::~GradientReducer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_.notify_one();
  thread_.join();
}

void GradientReducer::gradient_ready(const Parameter& parameter) {
  const std::uint32_t bucket = bucket_of_.at(parameter.index);
  bool released = false;
  {
    std::lock_guard lock(mutex_);
    if (pending_[bucket] > 0) --pending_[bucket];
    const std::int64_t before = released_;
    release_ready_buckets();
    released = released_ != before;
  }
  if (released) work_.notify_one();
}

void GradientReducer::release_ready_buckets() {
  while (next_release_ >= 0 && pending_[static_cast<std::size_t>(next_release_)] == 0) {
    queue_.push_back(static_cast<std::uint32_t>(next_release_));
    --next_release_;
    ++released_;
  }
}

void GradientReducer::finish_step() {
  std::unique_lock lock(mutex_);
  // A bucket whose gradients backward did not all write still goes, holding
  // what it has: every rank must make the same collective calls.
  for (std::uint32_t& pending : pending_) pending = 0;
  release_ready_buckets();
  work_.notify_one();
  done_.wait(lock, [&] { return reduced_ == released_ || failure_; });
  if (failure_) std::rethrow_exception(failure_);
  for (std::size_t b = 0; b < buckets_.size(); ++b)
    pending_[b] = buckets_[b].last - buckets_[b].first + 1;
  next_release_ = static_cast<std::int64_t>(buckets_.size()) - 1;
  released_ = reduced_ = 0;
}

void GradientReducer::communicate() {
  if (recorder_) recorder_->name_thread("allreduce");
  const profiler::NameId lane = profiler::intern("allreduce");
  std::unique_lock lock(mutex_);
  while (true) {
    work_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, nothing left
    const std::uint32_t bucket = queue_.front();
    queue_.erase(queue_.begin());
    lock.unlock();
    try {
      const profiler::Ticks start = profiler::read_ticks();
      communicator_.allreduce_mean(messages_[bucket]);
      if (recorder_)
        recorder_->collective({lane, profiler::CollectiveOp::kAllReduce, start,
                               profiler::read_ticks(), messages_[bucket].size_bytes(),
                               DType::kFloat32, bucket, buckets_[bucket].first,
                               buckets_[bucket].last});
    } catch (...) {
      lock.lock();
      failure_ = std::current_exception();
      done_.notify_all();
      return;
    }
    lock.lock();
    ++reduced_;
    if (reduced_ == released_) done_.notify_all();
  }
}

}  // namespace parity::trainer
