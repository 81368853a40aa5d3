#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "parity/profiler/sql_queries.hpp"
#include "parity/profiler/trace_reader.hpp"
#include "temp_dir.hpp"

using namespace parity::profiler;

namespace {

// Starts crash_child, waits until it prints `line`, then SIGKILLs it after `delay`.
void run_and_kill(const std::filesystem::path& trace, const char* mode, const std::string& line,
                  std::chrono::milliseconds delay) {
  int pipe_fds[2];
  REQUIRE(pipe(pipe_fds) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    dup2(pipe_fds[1], STDOUT_FILENO);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    execl(PARITY_CRASH_CHILD, PARITY_CRASH_CHILD, trace.c_str(), mode, nullptr);
    _exit(127);
  }
  close(pipe_fds[1]);
  FILE* output = fdopen(pipe_fds[0], "r");
  char buffer[128];
  bool seen = false;
  while (!seen && std::fgets(buffer, sizeof buffer, output))
    seen = std::string(buffer) == line + "\n";
  std::this_thread::sleep_for(delay);
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  std::fclose(output);
  REQUIRE(seen);
  REQUIRE(WIFSIGNALED(status));
  REQUIRE(WTERMSIG(status) == SIGKILL);
}

void check_steps_complete(const std::filesystem::path& path, int through_step) {
  TraceReader trace(path);  // a valid database, WAL recovered
  CHECK(trace.meta_value("complete") == "0");
  for (int step = 0; step <= through_step; ++step) {
    INFO("step " << step);
    CHECK(sql::query_int(trace.db(),
                         "SELECT count(*) FROM step WHERE step = " + std::to_string(step)) == 1);
    CHECK(sql::query_int(trace.db(),
                         "SELECT count(*) FROM range r JOIN step s ON r.start_ns >= "
                         "s.start_ns AND r.start_ns < s.end_ns WHERE r.depth = 1 AND "
                         "s.step = " +
                             std::to_string(step)) == 50);
  }
  CHECK(sql::query_text(trace.db(), "PRAGMA integrity_check") == "ok");
}

}  // namespace

TEST_CASE("SIGKILL after a flush leaves every flushed step in a valid database", "[e2e]") {
  TempDir dir;
  const auto trace = dir / "killed.db";
  run_and_kill(trace, "sync", "committed 5", std::chrono::milliseconds(0));
  check_steps_complete(trace, 5);
}

TEST_CASE("SIGKILL leaves every step that ended over a second before", "[e2e]") {
  TempDir dir;
  const auto trace = dir / "killed.db";
  // Step ends request a commit; the flush interval (1 s) bounds what can be lost.
  run_and_kill(trace, "async", "ended 3", std::chrono::milliseconds(1500));
  check_steps_complete(trace, 3);
}
