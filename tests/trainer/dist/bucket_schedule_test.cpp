// The bucket schedule both reducers follow: a bucket goes once all its
// gradients are ready and every bucket after it has gone, last to first.
#include "parity/trainer/dist/bucket_schedule.hpp"

#include <catch2/catch.hpp>
#include <vector>

#include "expect_error.hpp"

using parity::test::expect_error;
using parity::trainer::bucket_messages;
using parity::trainer::BucketSchedule;
using Released = std::vector<std::uint32_t>;

namespace {

// Parameters 0..5 in three buckets: {0, 1}, {2, 3, 4}, {5}.
BucketSchedule three_buckets() { return BucketSchedule({{0, 1}, {2, 4}, {5, 5}}, 6); }

}  // namespace

TEST_CASE("buckets go last to first, each once all its gradients are ready", "[unit]") {
  BucketSchedule schedule = three_buckets();
  CHECK(schedule.gradient_ready(5) == Released{2});
  CHECK(schedule.gradient_ready(4) == Released{});
  CHECK(schedule.gradient_ready(3) == Released{});
  CHECK(schedule.gradient_ready(2) == Released{1});
  CHECK(schedule.gradient_ready(1) == Released{});
  CHECK(schedule.gradient_ready(0) == Released{0});
  CHECK(schedule.release_rest() == Released{});
}

TEST_CASE("a bucket ready early waits for the buckets after it", "[unit]") {
  BucketSchedule schedule = three_buckets();
  // Bucket 0's gradients first: it may not overtake buckets 1 and 2.
  CHECK(schedule.gradient_ready(0) == Released{});
  CHECK(schedule.gradient_ready(1) == Released{});
  CHECK(schedule.gradient_ready(2) == Released{});
  CHECK(schedule.gradient_ready(3) == Released{});
  CHECK(schedule.gradient_ready(4) == Released{});
  CHECK(schedule.gradient_ready(5) == (Released{2, 1, 0}));
}

TEST_CASE("backward's end releases what is left, and a reset starts the next step", "[unit]") {
  BucketSchedule schedule = three_buckets();
  CHECK(schedule.gradient_ready(5) == Released{2});
  CHECK(schedule.gradient_ready(5) == Released{});  // a second report counts nothing
  CHECK(schedule.release_rest() == (Released{1, 0}));
  CHECK(schedule.release_rest() == Released{});
  schedule.reset();
  CHECK(schedule.gradient_ready(4) == Released{});
  CHECK(schedule.gradient_ready(5) == Released{2});
  CHECK(schedule.bucket_of(3) == 1);
}

TEST_CASE("buckets that skip, overlap or miss parameters are refused", "[unit]") {
  expect_error(
      [] {
        BucketSchedule({{0, 1}, {3, 5}}, 6);
      },
      "does not continue the buckets", {"allreduce_split"});
  expect_error(
      [] {
        BucketSchedule({{0, 3}, {2, 5}}, 6);
      },
      "does not continue the buckets", {"allreduce_split"});
  expect_error([] { BucketSchedule({{0, 4}}, 6); }, "cover 5 of 6 parameters", {"allreduce_split"});
  expect_error(
      [] {
        BucketSchedule({{0, 6}}, 6);
      },
      "does not continue the buckets", {"allreduce_split"});
}

TEST_CASE("a bucket's message spans its gradients in the contiguous buffer", "[unit]") {
  std::vector<float> buffer(16);
  // Gradients of 3, 5 and 4 floats, the second one 2 floats of padding after the first.
  const std::vector<std::span<float>> gradients{
      {buffer.data(), 3}, {buffer.data() + 5, 5}, {buffer.data() + 10, 4}};
  const auto messages = bucket_messages(gradients, {{0, 1}, {2, 2}});
  REQUIRE(messages.size() == 2);
  CHECK(messages[0].data() == buffer.data());
  CHECK(messages[0].size() == 10);
  CHECK(messages[1].data() == buffer.data() + 10);
  CHECK(messages[1].size() == 4);
}
