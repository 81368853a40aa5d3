#include "parity/profiler/clock.hpp"

#include <cmath>
#include <ctime>

namespace parity::profiler {
namespace {
// The initial calibration spans at least this long, so that its rate is not
// dominated by the pairing jitter of the two readings.
constexpr std::int64_t kMinSegmentNs = 1'000'000;
}  // namespace

ClockPair sample_clock_pair() {
  ClockPair best;
  Ticks best_gap = ~Ticks{0};
  for (int attempt = 0; attempt < 5; ++attempt) {
    const Ticks before = read_ticks();
    const std::int64_t ns = monotonic_ns();
    const Ticks after = read_ticks();
    if (after - before < best_gap) {
      best_gap = after - before;
      best = {before + (after - before) / 2, ns};
    }
  }
  return best;
}

TickConverter::TickConverter(ClockPair origin) : origin_ns_(origin.ns), anchor_(origin) {
  if (!PARITY_TICKS_ARE_TSC) return;  // ticks already are nanoseconds
  ClockPair later = sample_clock_pair();
  while (later.ns - origin.ns < kMinSegmentNs) later = sample_clock_pair();
  ns_per_tick_ = static_cast<double>(later.ns - origin.ns) /
                 static_cast<double>(later.ticks - origin.ticks);
}

void TickConverter::advance(ClockPair now) {
  if (now.ticks <= anchor_.ticks || now.ns < anchor_.ns) return;
  ns_per_tick_ = static_cast<double>(now.ns - anchor_.ns) /
                 static_cast<double>(now.ticks - anchor_.ticks);
  anchor_ = now;
}

TickConverter::TickConverter(ClockPair origin, ClockPair calibration)
    : origin_ns_(origin.ns), anchor_(origin) {
  ns_per_tick_ = static_cast<double>(calibration.ns - origin.ns) /
                 static_cast<double>(calibration.ticks - origin.ticks);
}

std::int64_t TickConverter::to_trace_ns(Ticks ticks) const {
  const double delta = static_cast<double>(static_cast<std::int64_t>(ticks - anchor_.ticks));
  return anchor_.ns + std::llround(delta * ns_per_tick_) - origin_ns_;
}

std::int64_t unix_ns_now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

}  // namespace parity::profiler
