#include "parity/trainer/dist/device_gradient_reducer.hpp"

namespace parity::trainer {

DeviceGradientReducer::DeviceGradientReducer(DeviceCollectives& collectives, Backend& backend,
                                             const std::vector<Parameter>& parameters,
                                             std::vector<profiler::GradientBucket> buckets,
                                             profiler::Recorder* recorder)
    : collectives_(collectives),
      recorder_(recorder),
      schedule_(std::move(buckets), parameters.size()),
      lane_(profiler::intern("allreduce")) {
  std::vector<ParamTensors*> tensors;
  for (const Parameter& p : parameters) {
    tensors.push_back(p.tensors);
    gradient_bytes_.push_back(static_cast<std::uint64_t>(element_count(p.shape)) * 4);
  }
  messages_ = bucket_messages(backend.contiguous_gradients(tensors), schedule_.buckets());
}

void DeviceGradientReducer::gradient_ready(const Parameter& parameter) {
  const std::vector<std::uint32_t> released = schedule_.gradient_ready(parameter.index);
  const bool tracing = recorder_ && recorder_->capturing();
  if (released.empty() && !tracing) return;
  const std::uint32_t mark = collectives_.mark_compute();
  if (tracing) ready_marks_.emplace_back(parameter.index, mark);
  queue(released, mark);
}

void DeviceGradientReducer::queue(const std::vector<std::uint32_t>& released, std::uint32_t mark) {
  for (const std::uint32_t bucket : released) {
    collectives_.queue_allreduce_mean(messages_[bucket], mark);
    queued_.push_back(bucket);
  }
}

void DeviceGradientReducer::end_backward() { collectives_.wait_compute(); }

void DeviceGradientReducer::finish_step() {
  const std::vector<std::uint32_t> rest = schedule_.release_rest();
  if (!rest.empty()) queue(rest, collectives_.mark_compute());
  collectives_.wait_collectives();
  const DeviceStepTimes times = collectives_.end_step();
  if (recorder_) record_step(times);
  ready_marks_.clear();
  queued_.clear();
  schedule_.reset();
}

void DeviceGradientReducer::record_step(const DeviceStepTimes& times) {
  for (const auto& [parameter, mark] : ready_marks_)
    if (mark < times.marks_ns.size())
      recorder_->gradient_ready_at(parameter, gradient_bytes_[parameter], times.marks_ns[mark]);
  for (std::size_t i = 0; i < queued_.size() && i < times.collectives.size(); ++i) {
    const std::uint32_t bucket = queued_[i];
    profiler::CollectiveEvent event{lane_,
                                    profiler::CollectiveOp::kAllReduce,
                                    static_cast<profiler::Ticks>(times.collectives[i].start_ns),
                                    static_cast<profiler::Ticks>(times.collectives[i].end_ns),
                                    messages_[bucket].size_bytes(),
                                    DType::kFloat32,
                                    bucket,
                                    schedule_.buckets()[bucket].first,
                                    schedule_.buckets()[bucket].last};
    event.time_base = profiler::TimeBase::kMonotonicNs;
    recorder_->collective(event);
  }
}

}  // namespace parity::trainer
