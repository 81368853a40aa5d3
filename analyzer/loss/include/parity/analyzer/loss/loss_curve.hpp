// LossCurve: one run's loss per global training step, as read from a
// training log or a trace, with where each value came from so that reports
// and errors can point at the line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace parity::analyzer {

struct LossPoint {
  std::int64_t step = 0;  // global, counted from 1 like the trainer's log lines
  double loss = 0;
  std::int64_t line = 0;  // the log line it was read from; 0 for a trace
};

struct LossCurve {
  std::string source;             // the file it was read from
  std::string kind;               // "MindSpore log", "pattern log", "Parity trace"
  std::string steps_note;         // how steps were numbered ("6 steps per epoch, ...")
  std::vector<LossPoint> points;  // by step, each step once
};

}  // namespace parity::analyzer
