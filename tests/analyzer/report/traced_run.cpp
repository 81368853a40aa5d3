#include "traced_run.hpp"

#include <catch2/catch.hpp>
#include <fstream>

namespace fs = std::filesystem;

ProcessResult parity_cli(std::vector<std::string> args) {
  args.insert(args.begin(), PARITY_CLI);
  return run_process(args);
}

nlohmann::json json_report(const std::vector<std::string>& traces, std::vector<std::string> extra,
                           int expected_exit) {
  std::vector<std::string> args{"report", "--format", "json"};
  args.insert(args.end(), traces.begin(), traces.end());
  args.insert(args.end(), extra.begin(), extra.end());
  const ProcessResult result = parity_cli(args);
  INFO(result.err);
  if (expected_exit >= 0) CHECK(result.exit_code == expected_exit);
  REQUIRE(result.exit_code != 2);
  return nlohmann::json::parse(result.out);
}

fs::path traced_run(const TempDir& dir, const std::string& name, int steps, int workers,
                    std::vector<std::string> extra) {
  const fs::path config = dir / (name + ".yaml");
  std::ofstream(config) << "net_name: resnet18\nclass_num: 4\ndataset: synthetic\n"
                        << "synthetic_size: " << 8 * steps << "\n"
                        << "train_image_size: 32\neval_image_size: 32\nbatch_size: 8\n"
                        << "epoch_size: 1\nlr_max: 0.01\nnum_workers: " << workers << "\n"
                        << "prefetch: 2\nthreads: 1\nseed: 3\nsave_checkpoint: false\n"
                        << "checkpoint_path: " << (dir / "checkpoints").string() << "\n";
  const fs::path trace = dir / (name + ".db");
  std::vector<std::string> args{PARITY_TRAIN,    "train",   "--config",
                                config.string(), "--trace", trace.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  const ProcessResult run = run_process(args);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  return trace;
}
