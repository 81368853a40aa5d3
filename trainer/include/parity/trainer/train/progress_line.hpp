// The training progress line: step, loss, images/s and ETA. On a terminal it
// is redrawn in place on stderr; otherwise a plain line is printed every
// `plain_interval` so that logs show progress without flooding.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace parity::trainer {

class ProgressLine {
 public:
  explicit ProgressLine(std::int64_t total_steps,
                        std::chrono::seconds plain_interval = std::chrono::seconds(60));
  ~ProgressLine();
  // After every step: steps done so far (of the whole run), images this run.
  void update(std::int64_t epoch, std::int64_t steps_done, double loss, double lr,
              std::int64_t images);
  // Clears the line before other output.
  void clear();

 private:
  using Clock = std::chrono::steady_clock;
  std::int64_t total_steps_, first_steps_done_ = -1;
  bool terminal_;
  Clock::time_point start_, last_draw_;
  std::chrono::seconds plain_interval_;
  bool drawn_ = false;
};

// "1:02:03" / "12:34"
std::string format_duration(double seconds);

}  // namespace parity::trainer
