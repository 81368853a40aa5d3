#include "parity/trainer/train/progress_line.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>

namespace parity::trainer {

std::string format_duration(double seconds) {
  const auto total = static_cast<long long>(std::llround(std::max(seconds, 0.0)));
  char text[32];
  if (total >= 3600)
    std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", total / 3600, total / 60 % 60, total % 60);
  else
    std::snprintf(text, sizeof text, "%lld:%02lld", total / 60, total % 60);
  return text;
}

ProgressLine::ProgressLine(std::int64_t total_steps, std::chrono::seconds plain_interval)
    : total_steps_(total_steps),
      terminal_(isatty(STDERR_FILENO) == 1),
      start_(Clock::now()),
      last_draw_(start_),
      plain_interval_(plain_interval) {}

ProgressLine::~ProgressLine() { clear(); }

void ProgressLine::update(std::int64_t epoch, std::int64_t steps_done, double loss, double lr,
                          std::int64_t images) {
  const auto now = Clock::now();
  if (first_steps_done_ < 0) first_steps_done_ = steps_done - 1;
  const auto interval = terminal_ ? std::chrono::milliseconds(250)
                                  : std::chrono::duration_cast<std::chrono::milliseconds>(plain_interval_);
  if (now - last_draw_ < interval && steps_done < total_steps_) return;
  last_draw_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double steps_this_run = double(steps_done - first_steps_done_);
  const double seconds_per_step = steps_this_run > 0 ? elapsed / steps_this_run : 0.0;
  const double eta = seconds_per_step * double(total_steps_ - steps_done);
  std::fprintf(stderr, "%sepoch %lld  step %lld/%lld  loss %.4f  lr %.5f  %.1f img/s  ETA %s%s",
               terminal_ ? "\r\033[K" : "", static_cast<long long>(epoch),
               static_cast<long long>(steps_done), static_cast<long long>(total_steps_), loss, lr,
               elapsed > 0 ? double(images) / elapsed : 0.0, format_duration(eta).c_str(),
               terminal_ ? "" : "\n");
  std::fflush(stderr);
  drawn_ = terminal_;
}

void ProgressLine::clear() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace parity::trainer
