#include "run_pair_fixture.hpp"

#include <fstream>

#include "parity/analyzer/synth/synth.hpp"

namespace panels_test {

TwoRuns write_two_runs(const std::filesystem::path& dir) {
  TwoRuns runs{dir / "a.db", dir / "b.db"};
  parity::analyzer::SynthOptions options;
  options.events = 30'000;
  parity::analyzer::write_synth_trace(options, runs.a);
  options.events = 20'000;
  options.seed = 2;
  parity::analyzer::write_synth_trace(options, runs.b);
  return runs;
}

std::filesystem::path write_profiler_json(const std::filesystem::path& path) {
  std::ofstream(path)
      << R"([{"name": "ProfilerStep#1", "ph": "X", "ts": 0, "dur": 100, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "aten::linear", "ph": "X", "ts": 10, "dur": 50, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "aten::addmm", "ph": "X", "ts": 20, "dur": 30, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "ProfilerStep#2", "ph": "X", "ts": 100, "dur": 100, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "aten::linear", "ph": "X", "ts": 110, "dur": 50, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "aten::addmm", "ph": "X", "ts": 120, "dur": 30, "tid": 1, "pid": "CPU functions", "args": {}}])";
  return path;
}

}  // namespace panels_test
