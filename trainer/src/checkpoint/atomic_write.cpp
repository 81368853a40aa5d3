#include "atomic_write.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>

#include "parity/core/error.hpp"

namespace parity::trainer::detail {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kTemporaryMarker = ".tmp-";

std::atomic<unsigned long> temporary_counter{0};

void sync_folder(const fs::path& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    throw Error("cannot open the folder to sync it: " + std::string(std::strerror(errno)),
                folder.string());
  const int synced = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  if (synced != 0)
    throw Error("cannot sync the folder to disk: " + std::string(std::strerror(error)),
                folder.string(), "check the disk; the new file may not survive a power loss");
}

}  // namespace

fs::path temporary_path_for(const fs::path& final_path) {
  const std::string name = "." + final_path.filename().string() + std::string(kTemporaryMarker) +
                           std::to_string(::getpid()) + "-" +
                           std::to_string(temporary_counter.fetch_add(1));
  return final_path.parent_path() / name;
}

std::optional<pid_t> temporary_owner(std::string_view file_name) {
  if (file_name.empty() || file_name.front() != '.') return std::nullopt;
  const auto marker = file_name.rfind(kTemporaryMarker);
  if (marker == std::string_view::npos) return std::nullopt;
  const std::string_view rest = file_name.substr(marker + kTemporaryMarker.size());
  const auto dash = rest.find('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 == rest.size()) return std::nullopt;
  pid_t pid = 0;
  const auto [end, error] = std::from_chars(rest.data(), rest.data() + dash, pid);
  if (error != std::errc() || end != rest.data() + dash || pid <= 0) return std::nullopt;
  unsigned long counter = 0;
  const auto [counter_end, counter_error] =
      std::from_chars(rest.data() + dash + 1, rest.data() + rest.size(), counter);
  if (counter_error != std::errc() || counter_end != rest.data() + rest.size()) return std::nullopt;
  return pid;
}

void replace_file_atomically(const fs::path& final_path,
                             const std::function<void(const fs::path&)>& write) {
  const fs::path temporary = temporary_path_for(final_path);
  try {
    write(temporary);
    if (::rename(temporary.c_str(), final_path.c_str()) != 0)
      throw Error("cannot move the new file into place: " + std::string(std::strerror(errno)),
                  final_path.string(), "check that nothing else (a folder?) holds that name");
  } catch (const Error& e) {
    ::unlink(temporary.c_str());
    if (e.where().find(temporary.filename().string()) == std::string::npos) throw;
    // Name the file the caller asked for; the temporary is only a detail.
    throw Error(e.what_failed(), final_path.string() + " (writing " + e.where() + ")", e.hint());
  } catch (...) {
    ::unlink(temporary.c_str());
    throw;
  }
  const fs::path folder =
      final_path.parent_path().empty() ? fs::path(".") : final_path.parent_path();
  sync_folder(folder);
}

}  // namespace parity::trainer::detail
