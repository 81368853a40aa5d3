#include "parity/trainer/dist/bucket_schedule.hpp"

#include <string>

#include "parity/core/error.hpp"

namespace parity::trainer {

BucketSchedule::BucketSchedule(std::vector<profiler::GradientBucket> buckets,
                               std::size_t parameter_count)
    : buckets_(std::move(buckets)) {
  bucket_of_.assign(parameter_count, 0);
  std::uint32_t expected_first = 0;
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    const profiler::GradientBucket& bucket = buckets_[b];
    if (bucket.first != expected_first || bucket.last < bucket.first ||
        bucket.last >= parameter_count)
      throw Error("gradient bucket " + std::to_string(b) + " (parameters " +
                      std::to_string(bucket.first) + ".." + std::to_string(bucket.last) +
                      ") does not continue the buckets before it",
                  "allreduce_split", "buckets must cover the parameters in order");
    expected_first = bucket.last + 1;
    for (std::uint32_t i = bucket.first; i <= bucket.last; ++i)
      bucket_of_[i] = static_cast<std::uint32_t>(b);
  }
  if (expected_first != parameter_count)
    throw Error("the gradient buckets cover " + std::to_string(expected_first) + " of " +
                    std::to_string(parameter_count) + " parameters",
                "allreduce_split", "buckets must cover every parameter");
  reset();
}

std::vector<std::uint32_t> BucketSchedule::gradient_ready(std::uint32_t parameter) {
  std::uint32_t& pending = pending_[bucket_of(parameter)];
  if (pending > 0) --pending;
  return release_ready();
}

std::vector<std::uint32_t> BucketSchedule::release_rest() {
  // A bucket whose gradients backward did not all write still goes, holding
  // what it has: every rank must make the same collective calls.
  for (std::uint32_t& pending : pending_) pending = 0;
  return release_ready();
}

void BucketSchedule::reset() {
  pending_.resize(buckets_.size());
  for (std::size_t b = 0; b < buckets_.size(); ++b)
    pending_[b] = buckets_[b].last - buckets_[b].first + 1;
  next_release_ = static_cast<std::int64_t>(buckets_.size()) - 1;
}

std::vector<std::uint32_t> BucketSchedule::release_ready() {
  std::vector<std::uint32_t> released;
  while (next_release_ >= 0 && pending_[static_cast<std::size_t>(next_release_)] == 0)
    released.push_back(static_cast<std::uint32_t>(next_release_--));
  return released;
}

std::vector<std::span<float>> bucket_messages(
    const std::vector<std::span<float>>& gradients,
    const std::vector<profiler::GradientBucket>& buckets) {
  std::vector<std::span<float>> messages;
  for (const profiler::GradientBucket& bucket : buckets) {
    float* begin = gradients.at(bucket.first).data();
    float* end = gradients.at(bucket.last).data() + gradients[bucket.last].size();
    messages.emplace_back(begin, static_cast<std::size_t>(end - begin));
  }
  return messages;
}

}  // namespace parity::trainer
