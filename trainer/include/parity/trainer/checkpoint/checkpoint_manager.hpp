// CheckpointManager: the trainer's checkpoint folder. It names files the way
// MindSpore does (resnet-1_1875.ckpt becomes resnet-1_1875.safetensors:
// PREFIX-EPOCH_STEPINEPOCH), writes them atomically, keeps at most keep_max
// of its own files (removing the oldest), and finds the newest to resume from.
// Files of other prefixes in the same folder are never touched.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parity/trainer/checkpoint/training_checkpoint.hpp"

namespace parity::trainer {

// One checkpoint file of a manager's prefix, as its name describes it.
struct CheckpointFile {
  std::filesystem::path path;
  std::int64_t epoch = 0;
  std::int64_t step_in_epoch = 0;
};

// "resnet-3_120.safetensors" for prefix "resnet", epoch 3, step_in_epoch 120.
std::string checkpoint_file_name(std::string_view prefix, std::int64_t epoch,
                                 std::int64_t step_in_epoch);
// The (epoch, step_in_epoch) of a file name written by checkpoint_file_name
// with `prefix`, or nullopt for any other name (other prefixes, temporaries,
// leading zeros, other extensions).
std::optional<std::pair<std::int64_t, std::int64_t>> parse_checkpoint_file_name(
    std::string_view file_name, std::string_view prefix);

class CheckpointManager {
 public:
  // keep_max = 0 keeps every file. Throws parity::Error for an empty prefix,
  // one holding '/' or starting with '.', or a negative keep_max. Touches no
  // file until save().
  CheckpointManager(std::filesystem::path folder, std::string prefix, std::int64_t keep_max = 0);

  const std::filesystem::path& folder() const { return folder_; }
  const std::string& prefix() const { return prefix_; }
  std::int64_t keep_max() const { return keep_max_; }

  std::filesystem::path path_for(std::int64_t epoch, std::int64_t step_in_epoch) const;

  // Creates the folder if needed, writes the checkpoint atomically under
  // path_for(epoch, step_in_epoch) (replacing a file of the same name), then
  // removes this prefix's oldest files until at most keep_max remain (never
  // the one just written) and temporaries left by dead processes. Returns the
  // path written. Throws parity::Error when the checkpoint cannot be written;
  // a file that cannot be removed is logged as a warning.
  std::filesystem::path save(const TrainingCheckpoint& checkpoint) const;

  // This prefix's files, oldest first by (epoch, step_in_epoch) - within an
  // epoch the order of global steps. Empty when the folder does not exist.
  std::vector<CheckpointFile> list() const;
  // The newest file, or nullopt when there is none.
  std::optional<std::filesystem::path> latest() const;

  // read_checkpoint(path).
  TrainingCheckpoint load(const std::filesystem::path& path) const;

 private:
  void remove_stale_temporaries() const;

  std::filesystem::path folder_;
  std::string prefix_;
  std::int64_t keep_max_;
};

}  // namespace parity::trainer
