// Atomic replacement of a file: write a temporary in the same folder, fsync
// it, rename it over the final name, fsync the folder. Private to the
// checkpoint store.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace parity::trainer::detail {

// ".NAME.tmp-PID-N" beside `final_path`, unique within this process.
std::filesystem::path temporary_path_for(const std::filesystem::path& final_path);
// The process id in a name made by temporary_path_for, or nullopt for any other name.
std::optional<pid_t> temporary_owner(std::string_view file_name);

// Calls write(temporary) - which must leave a complete file there, synced to
// disk - then renames it to `final_path` and syncs the folder. On failure the
// temporary is removed, `final_path` is left as it was, and parity::Error is
// thrown (what `write` threw, or the rename's or sync's failure).
void replace_file_atomically(const std::filesystem::path& final_path,
                             const std::function<void(const std::filesystem::path&)>& write);

}  // namespace parity::trainer::detail
