#include "parity/profiler/activity_buffer_pool.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "expect_error.hpp"

using namespace parity::profiler;

namespace {

constexpr std::size_t kBuffer = 64 * 1024;
constexpr std::int64_t kMs = 1'000'000;

ActivityBufferPoolOptions small_pool() {
  ActivityBufferPoolOptions options;
  options.buffer_bytes = kBuffer;
  options.max_bytes = 16 * kBuffer;
  options.headroom = std::chrono::milliseconds(100);
  options.rate_window = std::chrono::milliseconds(10);
  options.initial_buffers = 2;
  return options;
}

}  // namespace

TEST_CASE("the pool hands out aligned buffers and refuses past its limit", "[unit]") {
  ActivityBufferPool pool(small_pool());
  CHECK(pool.stats().buffers == 2);
  std::vector<std::uint8_t*> held;
  for (int i = 0; i < 16; ++i) {
    const auto buffer = pool.acquire();
    REQUIRE(buffer.size() == kBuffer);
    CHECK(reinterpret_cast<std::uintptr_t>(buffer.data()) % 8 == 0);
    held.push_back(buffer.data());
  }
  CHECK(pool.acquire().empty());
  CHECK(pool.acquire().empty());
  const ActivityBufferPoolStats stats = pool.stats();
  CHECK(stats.buffers == 16);
  CHECK(stats.refused == 2);
  CHECK(stats.peak_in_use == 16);
  pool.release(held.back(), 0, 0);
  CHECK(pool.acquire().data() == held.back());
}

TEST_CASE("every buffer handed out is zero, also after CUPTI wrote records into it", "[unit]") {
  ActivityBufferPoolOptions options = small_pool();
  options.initial_buffers = 1;
  ActivityBufferPool pool(options);
  const auto first = pool.acquire();
  CHECK(std::all_of(first.begin(), first.end(), [](std::uint8_t b) { return b == 0; }));
  // Records up to valid_bytes, and an incomplete one beyond.
  std::fill(first.begin(), first.end(), std::uint8_t{0xAB});
  pool.release(first.data(), kBuffer / 2, 0);
  const auto again = pool.acquire();
  REQUIRE(again.data() == first.data());
  CHECK(std::all_of(again.begin(), again.end(), [](std::uint8_t b) { return b == 0; }));
}

TEST_CASE("the free list grows to cover the headroom at the measured record rate", "[unit]") {
  ActivityBufferPool pool(small_pool());
  CHECK(pool.target_free_buffers() == 1);
  // A full buffer every millisecond: 65.5 MB/s, 100 ms of headroom = 100
  // buffers, more than the limit allows: the pool stops at 16.
  std::int64_t now = 0;
  for (int i = 0; i < 30; ++i) {
    const auto buffer = pool.acquire();
    REQUIRE(!buffer.empty());
    now += kMs;
    pool.release(buffer.data(), kBuffer, now);
  }
  CHECK(pool.stats().peak_bytes_per_second == Approx(kBuffer * 1000.0));
  CHECK(pool.target_free_buffers() >= 100);
  CHECK(pool.target_free_buffers() <= 101);
  CHECK(pool.stats().buffers == 16);
  CHECK(pool.stats().free == 16);
}

TEST_CASE("a slow record rate keeps the pool small", "[unit]") {
  ActivityBufferPool pool(small_pool());
  std::int64_t now = 0;
  // A quarter buffer every 20 ms: 0.8 MB/s, 100 ms of headroom = 80 kB = 2 buffers.
  for (int i = 0; i < 20; ++i) {
    const auto buffer = pool.acquire();
    now += 20 * kMs;
    pool.release(buffer.data(), kBuffer / 4, now);
  }
  CHECK(pool.stats().peak_bytes_per_second == Approx(kBuffer / 4 * 50.0).epsilon(0.01));
  CHECK(pool.target_free_buffers() == 2);
  CHECK(pool.stats().buffers == 2);
}

TEST_CASE("a flush returning many part-filled buffers at once is not read as a burst", "[unit]") {
  ActivityBufferPool pool(small_pool());
  std::vector<std::uint8_t*> held;
  for (int i = 0; i < 8; ++i) held.push_back(pool.acquire().data());
  // All eight come back within 80 us, each a tenth full (the final flush).
  std::int64_t now = 50 * kMs;
  for (std::uint8_t* buffer : held) pool.release(buffer, kBuffer / 10, now += 10'000);
  CHECK(pool.stats().peak_bytes_per_second == 0);
  CHECK(pool.target_free_buffers() == 1);
}

TEST_CASE("bad pool options are refused with the value named", "[unit]") {
  ActivityBufferPoolOptions options = small_pool();
  options.buffer_bytes = 1000;
  parity::test::expect_error([&] { ActivityBufferPool pool(options); }, "multiple of 8",
                             {"buffer_bytes = 1000"});
  options = small_pool();
  options.max_bytes = kBuffer / 2;
  parity::test::expect_error([&] { ActivityBufferPool pool(options); }, "below one buffer",
                             {"max_bytes"});
}
