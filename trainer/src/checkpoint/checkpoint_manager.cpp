#include "parity/trainer/checkpoint/checkpoint_manager.hpp"

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <system_error>

#include "atomic_write.hpp"
#include "parity/core/error.hpp"
#include "parity/core/log.hpp"

namespace parity::trainer {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kExtension = ".safetensors";

// A decimal number as checkpoint_file_name writes it: digits, no leading zero.
std::optional<std::int64_t> canonical_number(std::string_view text) {
  if (text.empty() || (text.size() > 1 && text.front() == '0')) return std::nullopt;
  if (!std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

bool process_is_gone(pid_t pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

}  // namespace

std::string checkpoint_file_name(std::string_view prefix, std::int64_t epoch,
                                 std::int64_t step_in_epoch) {
  return std::string(prefix) + "-" + std::to_string(epoch) + "_" + std::to_string(step_in_epoch) +
         std::string(kExtension);
}

std::optional<std::pair<std::int64_t, std::int64_t>> parse_checkpoint_file_name(
    std::string_view file_name, std::string_view prefix) {
  if (file_name.size() <= prefix.size() + 1 + kExtension.size()) return std::nullopt;
  if (!file_name.starts_with(prefix) || file_name[prefix.size()] != '-' ||
      !file_name.ends_with(kExtension))
    return std::nullopt;
  const std::string_view numbers =
      file_name.substr(prefix.size() + 1, file_name.size() - prefix.size() - 1 - kExtension.size());
  const auto underscore = numbers.find('_');
  if (underscore == std::string_view::npos) return std::nullopt;
  const auto epoch = canonical_number(numbers.substr(0, underscore));
  const auto step = canonical_number(numbers.substr(underscore + 1));
  if (!epoch || !step) return std::nullopt;
  return std::pair(*epoch, *step);
}

CheckpointManager::CheckpointManager(fs::path folder, std::string prefix, std::int64_t keep_max)
    : folder_(std::move(folder)), prefix_(std::move(prefix)), keep_max_(keep_max) {
  if (prefix_.empty() || prefix_.front() == '.' ||
      prefix_.find_first_of(std::string_view("/\0", 2)) != std::string::npos)
    throw Error("invalid checkpoint prefix '" + prefix_ + "'", folder_.string(),
                "the prefix is the start of a file name: not empty, no '/', not starting with '.'");
  if (keep_max_ < 0)
    throw Error("keep_max is negative: " + std::to_string(keep_max_), folder_.string(),
                "pass the number of checkpoints to keep, or 0 to keep them all");
}

fs::path CheckpointManager::path_for(std::int64_t epoch, std::int64_t step_in_epoch) const {
  return folder_ / checkpoint_file_name(prefix_, epoch, step_in_epoch);
}

fs::path CheckpointManager::save(const TrainingCheckpoint& checkpoint) const {
  if (checkpoint.epoch < 0 || checkpoint.step_in_epoch < 0)
    throw Error("checkpoint epoch and step_in_epoch must not be negative (" +
                    std::to_string(checkpoint.epoch) + ", " +
                    std::to_string(checkpoint.step_in_epoch) + ")",
                folder_.string());
  std::error_code ec;
  fs::create_directories(folder_, ec);
  if (ec)
    throw Error("cannot create the checkpoint folder: " + ec.message(), folder_.string(),
                "check checkpoint_path and the permissions of its parent");
  remove_stale_temporaries();

  const fs::path path = path_for(checkpoint.epoch, checkpoint.step_in_epoch);
  write_checkpoint(path, checkpoint);

  if (keep_max_ > 0) {
    std::vector<CheckpointFile> files = list();
    std::erase_if(files, [&](const CheckpointFile& file) { return file.path == path; });
    // The file just written counts as one of the keep_max.
    const std::size_t keep_others = static_cast<std::size_t>(keep_max_ - 1);
    const std::size_t excess = files.size() > keep_others ? files.size() - keep_others : 0;
    for (std::size_t i = 0; i < excess; ++i) {
      fs::remove(files[i].path, ec);
      if (ec)
        log::warning("cannot remove old checkpoint " + files[i].path.string() + ": " +
                     ec.message());
    }
  }
  return path;
}

std::vector<CheckpointFile> CheckpointManager::list() const {
  std::vector<CheckpointFile> files;
  std::error_code ec;
  if (!fs::is_directory(folder_, ec)) return files;
  fs::directory_iterator it(folder_, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const auto numbers = parse_checkpoint_file_name(name, prefix_);
    if (!numbers) continue;
    std::error_code type_error;
    if (!it->is_regular_file(type_error)) continue;
    files.push_back({it->path(), numbers->first, numbers->second});
  }
  if (ec)
    throw Error("cannot list the checkpoint folder: " + ec.message(), folder_.string(),
                "check the permissions of the folder");
  std::sort(files.begin(), files.end(), [](const CheckpointFile& a, const CheckpointFile& b) {
    return std::pair(a.epoch, a.step_in_epoch) < std::pair(b.epoch, b.step_in_epoch);
  });
  return files;
}

std::optional<fs::path> CheckpointManager::latest() const {
  const auto files = list();
  if (files.empty()) return std::nullopt;
  return files.back().path;
}

TrainingCheckpoint CheckpointManager::load(const fs::path& path) const {
  return read_checkpoint(path);
}

// A process killed while writing leaves ".PREFIX-E_S.safetensors.tmp-PID-N";
// remove those whose process is gone (a live one may be writing right now).
void CheckpointManager::remove_stale_temporaries() const {
  std::error_code ec;
  fs::directory_iterator it(folder_, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const auto owner = detail::temporary_owner(name);
    if (!owner || !name.starts_with("." + prefix_ + "-")) continue;
    const std::string final_name = name.substr(1, name.rfind(".tmp-") - 1);
    if (!parse_checkpoint_file_name(final_name, prefix_) || !process_is_gone(*owner)) continue;
    std::error_code remove_error;
    fs::remove(it->path(), remove_error);
    if (remove_error)
      log::warning("cannot remove a stale temporary checkpoint " + it->path().string() + ": " +
                   remove_error.message());
  }
}

}  // namespace parity::trainer
