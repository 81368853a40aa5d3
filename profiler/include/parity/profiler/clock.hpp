// The recorder's clocks. The hot path reads a raw tick counter (the x86 TSC,
// about 10 ns, against 24 ns for clock_gettime on our machines); the writer
// thread maps ticks to nanoseconds on the trace clock (CLOCK_MONOTONIC minus
// the trace's origin) by interpolating between pairs of (ticks, ns) readings
// taken at every drain, so conversion error never accumulates.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define PARITY_TICKS_ARE_TSC 1
#else
#define PARITY_TICKS_ARE_TSC 0
#endif

namespace parity::profiler {

using Ticks = std::uint64_t;

inline std::int64_t monotonic_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Wall-clock time, for the trace's meta (when it was made, where its origin
// lies on the Unix epoch); never for event times.
std::int64_t unix_ns_now();
std::string utc_now_iso8601();  // "2026-11-28T06:15:09Z"

inline Ticks read_ticks() {
#if PARITY_TICKS_ARE_TSC
  return __rdtsc();
#else
  return static_cast<Ticks>(monotonic_ns());
#endif
}

inline constexpr std::string_view kTickSource = PARITY_TICKS_ARE_TSC ? "rdtsc" : "steady_clock";

struct ClockPair {
  Ticks ticks = 0;
  std::int64_t ns = 0;  // CLOCK_MONOTONIC
};

// Reads ticks and nanoseconds as close together as it can (best of a few tries).
ClockPair sample_clock_pair();

// Maps ticks to trace nanoseconds on the line through the last two clock
// pairs. The writer advances it once per drain, after taking the ring heads,
// and converts each tick in the drain that reads it: every tick then lies in
// the segment it is interpolated on, so conversion is continuous and
// monotone. Not thread-safe: the writer thread owns it.
class TickConverter {
 public:
  // Calibrates an initial rate over about a millisecond; origin_ns becomes trace time 0.
  explicit TickConverter(ClockPair origin);
  // With a given second reading instead of a live calibration (tests).
  TickConverter(ClockPair origin, ClockPair calibration);

  // Starts a new segment ending at `now`.
  void advance(ClockPair now);
  std::int64_t to_trace_ns(Ticks ticks) const;
  std::int64_t origin_ns() const { return origin_ns_; }
  // Trace time of a CLOCK_MONOTONIC reading.
  std::int64_t monotonic_to_trace_ns(std::int64_t ns) const { return ns - origin_ns_; }

 private:
  std::int64_t origin_ns_;
  ClockPair anchor_;
  double ns_per_tick_ = 1.0;
};

}  // namespace parity::profiler
