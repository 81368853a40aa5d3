// TrainingCheckpoint: everything the trainer needs to resume a run (model
// state_dict, optimizer buffers, counters, RNG state, config), stored as one
// safetensors file whose tensors PyTorch loads as a plain state_dict and whose
// counters and text live in "__metadata__" under "parity." keys. Writing is
// atomic: a crash or a full disk never leaves a partial file under the final
// name. The layout is documented in docs/formats/safetensors.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "parity/importers/named_tensor.hpp"

namespace parity::trainer {

struct TrainingCheckpoint {
  // The model's state_dict with torchvision names ("conv1.weight",
  // "bn1.running_mean", "bn1.num_batches_tracked" as an int64 scalar of
  // shape []), then the optimizer's buffers, e.g.
  // "optimizer.momentum_buffer.conv1.weight" (same dtype and shape as its
  // parameter).
  std::vector<importers::NamedTensor> tensors;
  std::int64_t epoch = 0;          // the epoch the state belongs to, as the trainer numbers it
  std::int64_t step = 0;           // global optimizer steps done
  std::int64_t step_in_epoch = 0;  // steps done within `epoch`
  std::string rng_state;           // opaque bytes (stored base64-encoded)
  std::string config_yaml;         // the run's configuration (UTF-8 text)
  std::map<std::string, std::string> extra;  // further UTF-8 strings, e.g. a best accuracy
};

// Names of optimizer buffers start with this; the rest is the parameter's name.
inline constexpr std::string_view kMomentumBufferPrefix = "optimizer.momentum_buffer.";
// Every tensor of the optimizer's state starts with this.
inline constexpr std::string_view kOptimizerTensorPrefix = "optimizer.";

// "__metadata__" keys of a checkpoint (all values are strings).
inline constexpr std::string_view kCheckpointFormatKey = "parity.format";  // = kCheckpointFormat
inline constexpr std::string_view kCheckpointFormat = "training_checkpoint";
inline constexpr std::string_view kCheckpointVersionKey = "parity.format_version";
inline constexpr int kCheckpointVersion = 1;
inline constexpr std::string_view kCheckpointWriterKey = "parity.writer";  // "parity 0.1.0"
inline constexpr std::string_view kCheckpointEpochKey = "parity.epoch";
inline constexpr std::string_view kCheckpointStepKey = "parity.step";
inline constexpr std::string_view kCheckpointStepInEpochKey = "parity.step_in_epoch";
inline constexpr std::string_view kCheckpointRngStateKey = "parity.rng_state";  // base64
inline constexpr std::string_view kCheckpointConfigKey = "parity.config_yaml";
inline constexpr std::string_view kCheckpointExtraPrefix = "parity.extra.";

// Writes `checkpoint` to `path` atomically: into a temporary file in the same
// folder (which must exist), fsync, rename over `path`, fsync the folder. On
// failure throws parity::Error and leaves `path` as it was (absent, or the
// previous file) and no temporary file. Also refuses inconsistent tensors,
// negative counters, and momentum buffers without their parameter.
void write_checkpoint(const std::filesystem::path& path, const TrainingCheckpoint& checkpoint);

// Reads a checkpoint written by write_checkpoint. Throws parity::Error naming
// the file for damaged files and for files that are not trainer checkpoints
// (a plain safetensors file, a newer format version, a bad counter).
TrainingCheckpoint read_checkpoint(const std::filesystem::path& path);

// Whether `path` holds a checkpoint of Parity's trainer (a safetensors file
// whose metadata names its format), rather than weights in another layout.
// Throws parity::Error naming the file when it is no tensor file at all.
bool is_training_checkpoint(const std::filesystem::path& path);

}  // namespace parity::trainer
