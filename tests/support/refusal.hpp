// The check that a command-line tool refused to run: exit code 2, the
// expected message on stderr, no crash, nothing half-written to stdout.
#pragma once

#include <string>

#include "process.hpp"

void check_refused(const ProcessResult& result, const std::string& message);
