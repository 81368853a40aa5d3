#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "parity/profiler/chrome_trace_export.hpp"
#include "parity/profiler/recorder.hpp"
#include "temp_dir.hpp"
#include "trace_fixture.hpp"

using namespace parity::profiler;
using nlohmann::json;

namespace {

json export_to_json(const std::filesystem::path& path, ChromeExportStats* stats = nullptr) {
  TraceReader trace(path);
  std::ostringstream out;
  const auto result = export_chrome_trace(trace, out);
  if (stats) *stats = result;
  return json::parse(out.str());  // throws if the output is not JSON
}

// On each thread, complete events must nest: sorted by start, each one lies
// inside the enclosing event or starts after it ends.
void check_complete_events_nest(const json& events) {
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<std::pair<double, double>>> lanes;
  for (const auto& event : events)
    if (event["ph"] == "X")
      lanes[{event["pid"], event["tid"]}].emplace_back(event["ts"], event["dur"]);
  REQUIRE_FALSE(lanes.empty());
  for (auto& [lane, spans] : lanes) {
    std::stable_sort(spans.begin(), spans.end(), [](auto a, auto b) {
      return a.first < b.first || (a.first == b.first && a.second > b.second);
    });
    std::vector<double> open_ends;
    for (const auto& [start, dur] : spans) {
      while (!open_ends.empty() && start >= open_ends.back()) open_ends.pop_back();
      if (!open_ends.empty()) REQUIRE(start + dur <= open_ends.back() + 1e-9);
      open_ends.push_back(start + dur);
    }
  }
}

}  // namespace

TEST_CASE("Chrome export: nested slices, counters, flows and exact times", "[unit]") {
  TempDir dir;
  fixture::write_sample_trace(dir / "fixture.db");
  ChromeExportStats stats;
  const json trace = export_to_json(dir / "fixture.db", &stats);
  const json& events = trace["traceEvents"];
  check_complete_events_nest(events);
  CHECK(stats.events == events.size());

  const auto count = [&](auto predicate) {
    return std::count_if(events.begin(), events.end(), predicate);
  };
  CHECK(count([](const json& e) { return e["ph"] == "X" && e.value("cat", "") == "layer"; }) ==
        fixture::kSteps * fixture::kLayersPerStep);
  CHECK(count([](const json& e) { return e["ph"] == "X" && e.value("cat", "") == "gpu"; }) ==
        fixture::kSteps * (fixture::kKernelsPerStep + fixture::kMemcpyPerStep));
  CHECK(count([](const json& e) { return e["ph"] == "M" && e["name"] == "thread_name"; }) == 6);

  std::vector<double> losses;
  for (const auto& event : events)
    if (event["ph"] == "C" && event["name"] == "loss") losses.push_back(event["args"]["value"]);
  CHECK(losses == std::vector<double>{2.5, 2.25, 2.0});
  CHECK(count([](const json& e) { return e["ph"] == "C" && e["name"] == "train_queue"; }) ==
        fixture::kSteps);

  // One arrow per kernel, from its launch on the host to the kernel on the GPU.
  std::map<std::int64_t, json> starts, finishes;
  for (const auto& event : events) {
    if (event["ph"] == "s") starts[event["id"]] = event;
    if (event["ph"] == "f") finishes[event["id"]] = event;
  }
  CHECK(stats.flows == fixture::kSteps * fixture::kKernelsPerStep);
  REQUIRE(starts.size() == stats.flows);
  REQUIRE(finishes.size() == stats.flows);
  for (const auto& [id, start] : starts) {
    const json& finish = finishes.at(id);
    CHECK(start["tid"] == fixture::kMainThread);
    CHECK(finish["tid"] == fixture::kStream);
    CHECK(finish["pid"] != start["pid"]);  // the GPU is its own process
    CHECK(finish["ts"].get<double>() - start["ts"].get<double>() == Approx(20.0));
  }

  // Microseconds with three decimals keep nanoseconds; names are escaped.
  // value(): metadata events have no "cat", and operator[] of a const json on
  // a missing key is undefined behaviour (it crashed one run in thirty).
  const auto first_step = std::find_if(
      events.begin(), events.end(), [](const json& e) { return e.value("cat", "") == "step"; });
  REQUIRE(first_step != events.end());
  CHECK((*first_step)["ts"].get<double>() == 1000.0);
  CHECK((*first_step)["args"]["arg"] == 0);
  CHECK(count([](const json& e) { return e.value("name", "") == "layer\"1\""; }) > 0);
  CHECK(trace["otherData"]["command_line"] == "parity-train train --config r50.yaml");
}

TEST_CASE("Chrome export of a recorded trace", "[unit]") {
  TempDir dir;
  {
    RecorderOptions options;
    options.path = dir / "run.db";
    Recorder recorder(options);
    for (int step = 0; step < 3; ++step) {
      Scope scope(recorder, intern("step"), Category::kStep, step);
      for (int layer = 0; layer < 10; ++layer) {
        Scope l(recorder, intern("layer"), Category::kLayer);
        Scope o(recorder, intern("op"), Category::kOp);
      }
      recorder.counter(intern("lr"), 0.1 * step);
    }
  }
  const json trace = export_to_json(dir / "run.db");
  check_complete_events_nest(trace["traceEvents"]);
  const auto& events = trace["traceEvents"];
  CHECK(std::count_if(events.begin(), events.end(),
                      [](const json& e) { return e["ph"] == "X"; }) == 63);
}
