// A one-line progress display on stderr for long commands; silent when stderr
// is not a terminal, so logs and CI output stay clean.
#pragma once

#include <cstddef>
#include <string>

namespace parity::cli {

class ProgressLine {
 public:
  explicit ProgressLine(std::string label);
  ~ProgressLine();
  void update(double fraction);  // 0..1
  void update(std::size_t done, std::size_t total);

 private:
  std::string label_;
  bool enabled_;
  int last_percent_ = -1;
};

}  // namespace parity::cli
