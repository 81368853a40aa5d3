// Runs a command as a child process and waits for it, as `parity record`
// does: the parent passes SIGINT, SIGTERM and SIGHUP on to the child and
// returns its exit status.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace parity::cli {

struct ChildExit {
  int status = 0;  // the exit code, or 128 + the signal that ended the child
  int signal = 0;  // 0 when it exited
};

// Runs argv[0] (looked up on PATH) with `environment` set on top of ours and
// `pid_variable` set to the child's own pid. Throws parity::Error when the
// command cannot be started (not found, not executable).
ChildExit run_child(const std::vector<std::string>& argv,
                    const std::vector<std::pair<std::string, std::string>>& environment,
                    const std::string& pid_variable);

}  // namespace parity::cli
