// `parity record` as a user runs it: a real child process under the
// launcher. Machines without a GPU (CI) test the launcher, the environment
// it hands on and the trace that says nothing was recorded; the recording
// of CUDA work itself is tested on a GPU (cupti_tests, scripts/gpu/).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "parity/profiler/trace_reader.hpp"
#include "process.hpp"
#include "refusal.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

ProcessResult parity_record(std::vector<std::string> args) {
  args.insert(args.begin(), {PARITY_CLI, "record"});
  return run_process(args);
}

}  // namespace

TEST_CASE("parity record refuses bad usage before running anything", "[e2e]") {
  TempDir dir;
  const std::string output = (dir / "run.db").string();
  check_refused(parity_record({"-o", output, "--capture-range", "nvtx", "--", "true"}),
                "--capture-range nvtx needs the range's name");
  check_refused(parity_record({"-o", output, "--nvtx-capture", "step", "--", "true"}),
                "--nvtx-capture is used only with --capture-range nvtx");
  check_refused(parity_record({"-o", output, "--capture-range", "sometimes", "--", "true"}),
                "sometimes");
  check_refused(parity_record({"-o", (dir / "no" / "run.db").string(), "--", "true"}),
                "the output's folder does not exist");
  CHECK_FALSE(fs::exists(output));
}

#ifdef PARITY_RECORD_INJECTION
TEST_CASE("parity record hands the recording's settings to the launched process", "[e2e]") {
  TempDir dir;
  const fs::path output = dir / "run.db";
  const auto result = parity_record(
      {"-o", output.string(), "--nvtx-step", "train_step", "--", "/bin/sh", "-c",
       "echo \"$CUDA_INJECTION64_PATH|$NVTX_INJECTION64_PATH|$PARITY_RECORD_OUTPUT|"
       "$PARITY_RECORD_CAPTURE|$PARITY_RECORD_LAUNCHED_PID|$$|$PARITY_RECORD_STEP_RANGE\""});
  REQUIRE(result.exit_code == 0);
  const std::string line = result.out.substr(0, result.out.find('\n'));
  std::vector<std::string> fields;
  for (std::size_t start = 0;;) {
    const std::size_t bar = line.find('|', start);
    fields.push_back(line.substr(start, bar - start));
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  REQUIRE(fields.size() == 7);
  CHECK(fs::path(fields[0]).filename() == "libparity_cuda_inject.so");
  CHECK(fs::is_regular_file(fields[0]));
  CHECK(fields[1] == fields[0]);
  CHECK(fields[2] == fs::absolute(output).string());
  CHECK(fields[3] == "whole");
  CHECK(fields[4] == fields[5]);  // the shell is the launched process itself
  CHECK(fields[6] == "train_step");
}

TEST_CASE("a command that never starts CUDA leaves a trace that says so, with its exit status",
          "[e2e]") {
  TempDir dir;
  const fs::path output = dir / "run.db";
  const auto result = parity_record({"-o", output.string(), "--", "/bin/sh", "-c", "exit 3"});
  CHECK(result.exit_code == 3);
  CHECK_THAT(result.err, Catch::Contains("exited with status 3"));
  CHECK_THAT(result.out, Catch::Contains("run.db: 0 GPU activities"));
  parity::profiler::TraceReader trace(output);
  CHECK(trace.meta_value("complete") == "1");
  CHECK(trace.meta_value("command_line") == "/bin/sh -c 'exit 3'");
  CHECK_THAT(trace.meta_value("record.gpu").value_or(""),
             Catch::Contains("no process of the command initialized CUDA"));

  SECTION("a second recording to the same output needs --force") {
    check_refused(parity_record({"-o", output.string(), "--", "true"}),
                  "a recording is already there");
    const auto forced = parity_record({"--force", "-o", output.string(), "--", "true"});
    CHECK(forced.exit_code == 0);
  }
}

TEST_CASE("a command that cannot start is refused with its name", "[e2e]") {
  TempDir dir;
  check_refused(
      parity_record({"-o", (dir / "run.db").string(), "--", (dir / "no-such-program").string()}),
      "cannot run the command");
}
#else
TEST_CASE("parity built without CUDA says that it cannot record", "[e2e]") {
  TempDir dir;
  check_refused(parity_record({"-o", (dir / "run.db").string(), "--", "true"}),
                "this parity was built without CUDA");
}
#endif
