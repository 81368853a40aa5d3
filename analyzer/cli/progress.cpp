#include "progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace parity::cli {

ProgressLine::ProgressLine(std::string label)
    : label_(std::move(label)), enabled_(isatty(STDERR_FILENO) == 1) {}

ProgressLine::~ProgressLine() {
  if (enabled_ && last_percent_ >= 0) std::fprintf(stderr, "\n");
}

void ProgressLine::update(double fraction) {
  if (!enabled_) return;
  const int percent = static_cast<int>(fraction * 100.0);
  if (percent == last_percent_) return;
  last_percent_ = percent;
  std::fprintf(stderr, "\r%s %3d%%", label_.c_str(), percent);
  std::fflush(stderr);
}

void ProgressLine::update(std::size_t done, std::size_t total) {
  update(total == 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(total));
}

}  // namespace parity::cli
