// Runs a program (no shell) and collects its exit code, stdout and stderr.
#pragma once

#include <string>
#include <vector>

struct ProcessResult {
  int exit_code = -1;  // -1: killed by a signal
  std::string out, err;
};

ProcessResult run_process(const std::vector<std::string>& argv);
