#include <catch2/catch.hpp>

#include <random>

#include "parity/profiler/clock.hpp"

using namespace parity::profiler;

TEST_CASE("tick conversion passes through every reading and never goes back", "[unit]") {
  // A 2.5 GHz tick counter read with up to 300 ns of pairing jitter.
  std::mt19937 random(5);
  const ClockPair origin{1'000'000, 50'000'000};
  TickConverter converter(origin, {origin.ticks + 2'500'000, origin.ns + 1'000'000});
  CHECK(converter.to_trace_ns(origin.ticks) == 0);

  ClockPair previous = origin;
  std::int64_t last_converted = 0;
  for (int drain = 0; drain < 2000; ++drain) {
    // Drains come 10 ms apart, or much closer when flushes are requested.
    const std::int64_t span_ns = drain % 3 ? 10'000'000 : 2'000 + random() % 50'000;
    const std::int64_t jitter = static_cast<std::int64_t>(random() % 300);
    const ClockPair now{previous.ticks + static_cast<Ticks>(span_ns * 5 / 2),
                        previous.ns + span_ns + jitter};
    converter.advance(now);
    // The ticks decoded in this drain lie between the two readings.
    for (Ticks tick = previous.ticks; tick <= now.ticks; tick += (now.ticks - previous.ticks) / 7 + 1) {
      const std::int64_t converted = converter.to_trace_ns(tick);
      REQUIRE(converted >= last_converted);
      last_converted = converted;
    }
    REQUIRE(converter.to_trace_ns(now.ticks) == now.ns - origin.ns);
    previous = now;
  }
}

TEST_CASE("a live clock pair reads ticks and nanoseconds together", "[unit]") {
  const ClockPair first = sample_clock_pair();
  const ClockPair second = sample_clock_pair();
  CHECK(second.ticks >= first.ticks);
  CHECK(second.ns >= first.ns);
  TickConverter converter(first);
  const std::int64_t before = monotonic_ns();
  const std::int64_t converted = converter.to_trace_ns(read_ticks()) + converter.origin_ns();
  const std::int64_t after = monotonic_ns();
  CHECK(converted >= before - 20'000);  // the calibration rate, over ~1 ms
  CHECK(converted <= after + 20'000);
}
