// GradientReducer: averages the gradients of every rank during backward, in
// buckets (see parity/profiler/allreduce_split.hpp), over a host Communicator
// (MPI). A bucket's AllReduce starts on the reducer's communication thread as
// soon as BucketSchedule releases it, so it overlaps the rest of backward.
// Every bucket is a collective row of the trace (bucket, parameter range,
// bytes, start and end). GPU ranks use DeviceGradientReducer instead.
//
// The gradients live in one contiguous buffer (Backend::contiguous_gradients)
// in forward parameter order, so a bucket is one in-place AllReduce.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "parity/profiler/allreduce_split.hpp"
#include "parity/trainer/dist/bucket_schedule.hpp"
#include "parity/trainer/dist/communicator.hpp"
#include "parity/trainer/nn/module.hpp"

namespace parity::trainer {

class GradientReducer final : public StepReducer {
 public:
  // `parameters` in forward (registration) order, as ModelState lists them.
  GradientReducer(Communicator& communicator, Backend& backend,
                  const std::vector<Parameter>& parameters,
                  std::vector<profiler::GradientBucket> buckets, profiler::Recorder* recorder);
  ~GradientReducer() override;
  GradientReducer(const GradientReducer&) = delete;
  GradientReducer& operator=(const GradientReducer&) = delete;

  // Main thread, from each layer's backward.
  void gradient_ready(const Parameter& parameter) override;
  // Rethrows a failure of the communication thread.
  void finish_step() override;

  const std::vector<profiler::GradientBucket>& buckets() const override {
    return schedule_.buckets();
  }
  std::uint64_t bucket_bytes(std::size_t bucket) const { return messages_[bucket].size_bytes(); }

 private:
  void queue(const std::vector<std::uint32_t>& released);  // with mutex_ held
  void communicate();                                      // the communication thread

  Communicator& communicator_;
  profiler::Recorder* recorder_;
  BucketSchedule schedule_;                  // its step state guarded by mutex_
  std::vector<std::span<float>> messages_;   // each bucket's part of the gradient buffer
  std::int64_t released_ = 0, reduced_ = 0;  // buckets this step

  std::mutex mutex_;
  std::condition_variable work_, done_;
  std::vector<std::uint32_t> queue_;  // released buckets, in order
  std::exception_ptr failure_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace parity::trainer
