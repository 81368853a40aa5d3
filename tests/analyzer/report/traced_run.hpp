// What the end-to-end report tests share: running `parity`, and recording a
// real trace with parity-train (a small ResNet-18 on synthetic data).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "process.hpp"
#include "temp_dir.hpp"

ProcessResult parity_cli(std::vector<std::string> args);
// `parity report --format json` of `traces` with `extra` options; checks the
// exit code when `expected_exit` is 0 or more, and that the report ran.
nlohmann::json json_report(const std::vector<std::string>& traces,
                           std::vector<std::string> extra = {}, int expected_exit = -1);

// A traced training run of a small ResNet-18 on synthetic data: `steps`
// steps of batch 8 with `workers` loader threads and `extra` parity-train
// arguments; the trace is dir/name.db.
std::filesystem::path traced_run(const TempDir& dir, const std::string& name, int steps,
                                 int workers, std::vector<std::string> extra = {});
