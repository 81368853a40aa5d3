#include "parity/trainer/checkpoint/training_checkpoint.hpp"

#include <array>
#include <charconv>
#include <set>

#include "atomic_write.hpp"
#include "parity/core/error.hpp"
#include "parity/core/version.hpp"
#include "parity/importers/safetensors.hpp"

namespace parity::trainer {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kBase64Alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t left = bytes.size() - i;
    std::uint32_t group = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    if (left > 1)
      group |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    if (left > 2) group |= static_cast<unsigned char>(bytes[i + 2]);
    out += kBase64Alphabet[(group >> 18) & 63];
    out += kBase64Alphabet[(group >> 12) & 63];
    out += left > 1 ? kBase64Alphabet[(group >> 6) & 63] : '=';
    out += left > 2 ? kBase64Alphabet[group & 63] : '=';
  }
  return out;
}

// Strict: a multiple of 4 characters from the alphabet, '=' only as padding.
std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::array<int, 256> value{};
  value.fill(-1);
  for (std::size_t i = 0; i < kBase64Alphabet.size(); ++i)
    value[static_cast<unsigned char>(kBase64Alphabet[i])] = static_cast<int>(i);
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    const int padding = last ? (text[i + 3] == '=') + (text[i + 2] == '=') : 0;
    if (padding == 1 && text[i + 2] == '=') return std::nullopt;  // "x=y=" is not padding
    std::uint32_t group = 0;
    for (int k = 0; k < 4; ++k) {
      int digit = 0;
      if (k < 4 - padding) {
        digit = value[static_cast<unsigned char>(text[i + k])];
        if (digit < 0) return std::nullopt;
      }
      group = (group << 6) | static_cast<std::uint32_t>(digit);
    }
    out += static_cast<char>((group >> 16) & 0xff);
    if (padding < 2) out += static_cast<char>((group >> 8) & 0xff);
    if (padding < 1) out += static_cast<char>(group & 0xff);
  }
  return out;
}

std::string not_a_checkpoint_hint() {
  return "it is not a file written by Parity's trainer (a plain safetensors file of weights?); "
         "read it with parity::importers::SafetensorsFile, or pass a trainer checkpoint";
}

const std::string& required(const std::map<std::string, std::string>& metadata,
                            std::string_view key, const fs::path& path) {
  const auto it = metadata.find(std::string(key));
  if (it == metadata.end())
    throw Error("the checkpoint's metadata has no " + std::string(key), path.string(),
                "the file is damaged or was not written by Parity's trainer");
  return it->second;
}

std::int64_t counter(const std::map<std::string, std::string>& metadata, std::string_view key,
                     const fs::path& path) {
  const std::string& text = required(metadata, key, path);
  std::int64_t value = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || value < 0)
    throw Error(std::string(key) + " is '" + text + "', not a non-negative integer", path.string(),
                "the file is damaged or was not written by Parity's trainer");
  return value;
}

// Every momentum buffer must shadow a tensor of the model with its dtype and shape.
void check_optimizer_buffers(const std::vector<importers::NamedTensor>& tensors,
                             const fs::path& path) {
  std::map<std::string_view, const importers::NamedTensor*> by_name;
  for (const auto& tensor : tensors) by_name[tensor.name] = &tensor;
  for (const auto& tensor : tensors) {
    if (!tensor.name.starts_with(kMomentumBufferPrefix)) continue;
    const std::string_view parameter =
        std::string_view(tensor.name).substr(kMomentumBufferPrefix.size());
    const auto it = by_name.find(parameter);
    const std::string where = path.string() + ", tensor '" + tensor.name + "'";
    if (it == by_name.end())
      throw Error("momentum buffer of a parameter the checkpoint does not hold ('" +
                      std::string(parameter) + "')",
                  where, "every optimizer.momentum_buffer.NAME needs the model tensor NAME");
    if (it->second->dtype != tensor.dtype || it->second->shape != tensor.shape)
      throw Error("momentum buffer is " + std::string(dtype_name(tensor.dtype)) + " " +
                      importers::shape_to_string(tensor.shape) + ", its parameter " +
                      std::string(dtype_name(it->second->dtype)) + " " +
                      importers::shape_to_string(it->second->shape),
                  where, "a momentum buffer has its parameter's dtype and shape");
  }
}

}  // namespace

void write_checkpoint(const fs::path& path, const TrainingCheckpoint& checkpoint) {
  const auto check_counter = [&](std::int64_t value, std::string_view name) {
    if (value < 0)
      throw Error("checkpoint " + std::string(name) + " is negative: " + std::to_string(value),
                  path.string());
  };
  check_counter(checkpoint.epoch, "epoch");
  check_counter(checkpoint.step, "step");
  check_counter(checkpoint.step_in_epoch, "step_in_epoch");
  for (const auto& tensor : checkpoint.tensors) tensor.check(path.string());
  check_optimizer_buffers(checkpoint.tensors, path);

  std::map<std::string, std::string> metadata;
  metadata["format"] = "pt";  // what Hugging Face's loaders expect of PyTorch tensors
  metadata[std::string(kCheckpointFormatKey)] = kCheckpointFormat;
  metadata[std::string(kCheckpointVersionKey)] = std::to_string(kCheckpointVersion);
  metadata[std::string(kCheckpointWriterKey)] = std::string("parity ") + kVersion;
  metadata[std::string(kCheckpointEpochKey)] = std::to_string(checkpoint.epoch);
  metadata[std::string(kCheckpointStepKey)] = std::to_string(checkpoint.step);
  metadata[std::string(kCheckpointStepInEpochKey)] = std::to_string(checkpoint.step_in_epoch);
  metadata[std::string(kCheckpointRngStateKey)] = base64_encode(checkpoint.rng_state);
  metadata[std::string(kCheckpointConfigKey)] = checkpoint.config_yaml;
  for (const auto& [key, value] : checkpoint.extra) {
    if (key.empty()) throw Error("checkpoint extra keys must not be empty", path.string());
    metadata[std::string(kCheckpointExtraPrefix) + key] = value;
  }

  detail::replace_file_atomically(path, [&](const fs::path& temporary) {
    importers::write_safetensors(temporary, checkpoint.tensors, metadata, {.sync = true});
  });
}

bool is_training_checkpoint(const fs::path& path) {
  if (importers::open_tensor_file(path)->format() != "safetensors") return false;
  return importers::SafetensorsFile::open(path).metadata().contains(
      std::string(kCheckpointFormatKey));
}

TrainingCheckpoint read_checkpoint(const fs::path& path) {
  const auto file = importers::SafetensorsFile::open(path);
  const auto& metadata = file.metadata();
  const auto format = metadata.find(std::string(kCheckpointFormatKey));
  if (format == metadata.end())
    throw Error("not a Parity training checkpoint: its metadata has no " +
                    std::string(kCheckpointFormatKey),
                path.string(), not_a_checkpoint_hint());
  if (format->second != kCheckpointFormat)
    throw Error("not a Parity training checkpoint: " + std::string(kCheckpointFormatKey) + " is '" +
                    format->second + "'",
                path.string(), not_a_checkpoint_hint());
  const std::int64_t version = counter(metadata, kCheckpointVersionKey, path);
  if (version != kCheckpointVersion)
    throw Error("checkpoint format version " + std::to_string(version) + " is not readable by " +
                    "this build, which reads version " + std::to_string(kCheckpointVersion),
                path.string(),
                version > kCheckpointVersion ? "it was written by a newer Parity; update Parity"
                                             : "the file is damaged");

  static const std::set<std::string_view> kKnownKeys{
      kCheckpointFormatKey,   kCheckpointVersionKey, kCheckpointWriterKey,
      kCheckpointEpochKey,    kCheckpointStepKey,    kCheckpointStepInEpochKey,
      kCheckpointRngStateKey, kCheckpointConfigKey};
  TrainingCheckpoint checkpoint;
  for (const auto& [key, value] : metadata) {
    if (!key.starts_with("parity.") || kKnownKeys.contains(key)) continue;
    if (key.starts_with(kCheckpointExtraPrefix) && key.size() > kCheckpointExtraPrefix.size()) {
      checkpoint.extra[key.substr(kCheckpointExtraPrefix.size())] = value;
      continue;
    }
    throw Error("unknown checkpoint metadata key '" + key + "'", path.string(),
                "the file was written by a different Parity version, or edited by hand");
  }
  checkpoint.epoch = counter(metadata, kCheckpointEpochKey, path);
  checkpoint.step = counter(metadata, kCheckpointStepKey, path);
  checkpoint.step_in_epoch = counter(metadata, kCheckpointStepInEpochKey, path);
  const auto rng_state = base64_decode(required(metadata, kCheckpointRngStateKey, path));
  if (!rng_state)
    throw Error(std::string(kCheckpointRngStateKey) + " is not valid base64", path.string(),
                "the file is damaged");
  checkpoint.rng_state = *rng_state;
  checkpoint.config_yaml = required(metadata, kCheckpointConfigKey, path);
  checkpoint.tensors = file.read_all();
  check_optimizer_buffers(checkpoint.tensors, path);
  return checkpoint;
}

}  // namespace parity::trainer
