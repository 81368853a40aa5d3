#include "child_process.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include "parity/core/error.hpp"

namespace parity::cli {

namespace {

volatile sig_atomic_t running_child = 0;

void pass_on(int signal) {
  if (running_child > 0) kill(static_cast<pid_t>(running_child), signal);
}

// Installs pass_on for the signals a user or a batch system sends, and puts
// the previous handlers back when it goes.
class ForwardedSignals {
 public:
  ForwardedSignals() {
    struct sigaction action {};
    action.sa_handler = pass_on;
    sigemptyset(&action.sa_mask);
    for (std::size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &action, &saved_[i]);
  }
  ~ForwardedSignals() {
    for (std::size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &saved_[i], nullptr);
  }
  ForwardedSignals(const ForwardedSignals&) = delete;
  ForwardedSignals& operator=(const ForwardedSignals&) = delete;

 private:
  static constexpr std::array<int, 3> kSignals{SIGINT, SIGTERM, SIGHUP};
  std::array<struct sigaction, 3> saved_{};
};

// In the child, between fork and exec: reports exec's errno through `report`.
[[noreturn]] void exec_child(const std::vector<std::string>& argv,
                             const std::vector<std::pair<std::string, std::string>>& environment,
                             const std::string& pid_variable, int report) {
  for (const auto& [name, value] : environment) setenv(name.c_str(), value.c_str(), 1);
  setenv(pid_variable.c_str(), std::to_string(getpid()).c_str(), 1);
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  const int error = errno;
  [[maybe_unused]] const ssize_t written = write(report, &error, sizeof error);
  _exit(127);
}

}  // namespace

ChildExit run_child(const std::vector<std::string>& argv,
                    const std::vector<std::pair<std::string, std::string>>& environment,
                    const std::string& pid_variable) {
  if (argv.empty()) throw Error("no command to run");
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0)
    throw Error(std::string("pipe: ") + std::strerror(errno), argv[0]);
  ForwardedSignals forwarded;
  const pid_t child = fork();
  if (child < 0) {
    close(report[0]);
    close(report[1]);
    throw Error(std::string("fork: ") + std::strerror(errno), argv[0]);
  }
  if (child == 0) exec_child(argv, environment, pid_variable, report[1]);
  running_child = child;
  close(report[1]);
  int exec_error = 0;
  ssize_t got = 0;
  do got = read(report[0], &exec_error, sizeof exec_error);
  while (got < 0 && errno == EINTR);
  close(report[0]);

  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  running_child = 0;
  if (got == static_cast<ssize_t>(sizeof exec_error))
    throw Error(std::string("cannot run the command: ") + std::strerror(exec_error), argv[0],
                "check the command's name and that it is on PATH and executable");
  if (WIFSIGNALED(status)) return {128 + WTERMSIG(status), WTERMSIG(status)};
  return {WEXITSTATUS(status), 0};
}

}  // namespace parity::cli
