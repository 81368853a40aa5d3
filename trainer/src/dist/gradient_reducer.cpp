#include "parity/trainer/dist/gradient_reducer.hpp"

namespace parity::trainer {

GradientReducer::GradientReducer(Communicator& communicator, Backend& backend,
                                 const std::vector<Parameter>& parameters,
                                 std::vector<profiler::GradientBucket> buckets,
                                 profiler::Recorder* recorder)
    : communicator_(communicator),
      recorder_(recorder),
      schedule_(std::move(buckets), parameters.size()) {
  std::vector<ParamTensors*> tensors;
  for (const Parameter& p : parameters) tensors.push_back(p.tensors);
  messages_ = bucket_messages(backend.contiguous_gradients(tensors), schedule_.buckets());
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
  bool released = false;
  {
    std::lock_guard lock(mutex_);
    const std::vector<std::uint32_t> buckets = schedule_.gradient_ready(parameter.index);
    queue(buckets);
    released = !buckets.empty();
  }
  if (released) work_.notify_one();
}

void GradientReducer::queue(const std::vector<std::uint32_t>& released) {
  queue_.insert(queue_.end(), released.begin(), released.end());
  released_ += static_cast<std::int64_t>(released.size());
}

void GradientReducer::finish_step() {
  std::unique_lock lock(mutex_);
  queue(schedule_.release_rest());
  work_.notify_one();
  done_.wait(lock, [&] { return reduced_ == released_ || failure_; });
  if (failure_) std::rethrow_exception(failure_);
  schedule_.reset();
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
                               DType::kFloat32, bucket, schedule_.buckets()[bucket].first,
                               schedule_.buckets()[bucket].last});
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
