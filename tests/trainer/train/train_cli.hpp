// What the end-to-end tests of `parity-train` share: a small config (a
// ResNet-18 on 16-pixel synthetic images, one compute thread, so a run
// takes a second or two), running the binary, and reading its output.
#pragma once

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "process.hpp"

namespace parity_train_cli {

namespace fs = std::filesystem;

// A config as ordered key: value lines; set() replaces or appends a key.
class Config {
 public:
  explicit Config(const fs::path& folder) {
    set("net_name", "resnet18");
    set("class_num", "4");
    set("dataset", "synthetic");
    set("synthetic_size", "48");  // 6 steps of 8 per epoch
    set("train_image_size", "16");
    set("eval_image_size", "16");
    set("batch_size", "8");
    set("epoch_size", "2");
    set("lr_decay_mode", "cosine");
    set("lr_max", "0.02");
    set("momentum", "0.9");
    set("weight_decay", "0.0001");
    set("label_smooth_factor", "0.1");
    set("num_workers", "1");
    set("prefetch", "2");
    set("threads", "1");
    set("seed", "5");
    set("deterministic", "true");
    set("checkpoint_path", (folder / "checkpoints").string());
    set("checkpoint_prefix", "run");
  }
  Config& set(const std::string& key, const std::string& value) {
    for (auto& line : lines_)
      if (line.first == key) {
        line.second = value;
        return *this;
      }
    lines_.emplace_back(key, value);
    return *this;
  }
  fs::path write(const fs::path& path) const {
    std::ofstream out(path);
    for (const auto& [key, value] : lines_) out << key << ": " << value << '\n';
    return path;
  }

 private:
  std::vector<std::pair<std::string, std::string>> lines_;
};

inline ProcessResult parity_train(std::vector<std::string> args) {
  args.insert(args.begin(), PARITY_TRAIN);
  return run_process(args);
}

// The seeds' "epoch: E step: S, loss is L" lines, in order.
inline std::vector<std::string> loss_lines(const std::string& out) {
  std::vector<std::string> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    if (line.starts_with("epoch: ") && line.find(", loss is ") != std::string::npos)
      lines.push_back(line);
  return lines;
}

// The path after "checkpoint: " in a training run's last lines.
inline fs::path last_checkpoint(const std::string& out) {
  const auto at = out.rfind("\ncheckpoint: ");
  REQUIRE(at != std::string::npos);
  const auto begin = at + std::string("\ncheckpoint: ").size();
  return out.substr(begin, out.find('\n', begin) - begin);
}

// A run that could not run: exit code 2, a message, no crash.
inline void check_refused(const ProcessResult& result, const std::vector<std::string>& phrases) {
  INFO("stdout: " << result.out << "\nstderr: " << result.err);
  CHECK(result.exit_code == 2);
  for (const auto& phrase : phrases) CHECK_THAT(result.err, Catch::Contains(phrase));
  CHECK_THAT(result.err, !Catch::Contains("terminate called"));
}

}  // namespace parity_train_cli
