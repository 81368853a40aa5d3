#include "mindspore/mindspore_profile_dir.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <string_view>

namespace parity::importers::trace {
namespace {

namespace fs = std::filesystem;

struct NamePattern {
  std::string_view prefix, suffix;
  fs::path MindSporeRankFiles::*slot;
};

constexpr NamePattern kPatterns[] = {
    {"ascend_timeline_display_", ".json", &MindSporeRankFiles::timeline},
    {"gpu_timeline_display_", ".json", &MindSporeRankFiles::timeline},
    {"timeline_display_", ".json", &MindSporeRankFiles::timeline},
    {"step_trace_raw_", "_detail_time.csv", &MindSporeRankFiles::step_trace},
    {"device_queue_profiling_", ".txt", &MindSporeRankFiles::queue_trace},
    {"dataset_iterator_profiling_", ".txt", &MindSporeRankFiles::queue_trace},
    {"op_statistic_", ".csv", &MindSporeRankFiles::op_statistic},
    {"minddata_pipeline_raw_", ".csv", &MindSporeRankFiles::pipeline},
    {"output_timeline_data_", ".txt", &MindSporeRankFiles::timeline_data},
};

// The rank in "<prefix><rank><suffix>"; nullopt for another name.
std::optional<std::int64_t> rank_in(std::string_view name, const NamePattern& pattern) {
  if (!name.starts_with(pattern.prefix) || !name.ends_with(pattern.suffix)) return std::nullopt;
  name.remove_prefix(pattern.prefix.size());
  name.remove_suffix(pattern.suffix.size());
  std::int64_t rank = 0;
  const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), rank);
  if (error != std::errc() || end != name.data() + name.size() || name.empty()) return std::nullopt;
  return rank;
}

// Patterns in their order of preference: where a rank has both, the device
// queue's file wins over the iterator's (sink mode's is the device's view).
void collect(const fs::path& dir, std::map<std::int64_t, MindSporeRankFiles>& ranks) {
  std::vector<fs::path> files;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, error))
    if (entry.is_regular_file(error)) files.push_back(entry.path());
  for (const NamePattern& pattern : kPatterns)
    for (const fs::path& file : files) {
      const auto rank = rank_in(file.filename().string(), pattern);
      if (!rank) continue;
      MindSporeRankFiles& found = ranks[*rank];
      found.rank = *rank;
      if ((found.*pattern.slot).empty()) found.*pattern.slot = file;
    }
}

}  // namespace

std::vector<MindSporeRankFiles> find_mindspore_ranks(const fs::path& dir) {
  std::map<std::int64_t, MindSporeRankFiles> ranks;
  std::error_code error;
  if (!fs::is_directory(dir, error)) return {};
  collect(dir, ranks);
  std::vector<fs::path> subfolders;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, error))
    if (entry.is_directory(error)) subfolders.push_back(entry.path());
  std::sort(subfolders.begin(), subfolders.end());  // a rank found twice: the first folder's
  for (const fs::path& subfolder : subfolders) collect(subfolder, ranks);
  std::vector<MindSporeRankFiles> found;
  for (auto& [rank, files] : ranks)
    if (!files.timeline.empty() || !files.step_trace.empty()) found.push_back(std::move(files));
  return found;
}

std::vector<fs::path> files_of(const MindSporeRankFiles& rank) {
  std::vector<fs::path> files;
  for (const fs::path* file : {&rank.timeline, &rank.step_trace, &rank.queue_trace,
                               &rank.op_statistic, &rank.pipeline, &rank.timeline_data})
    if (!file->empty()) files.push_back(*file);
  return files;
}

std::vector<std::string> unread_files(const MindSporeRankFiles& rank) {
  const std::vector<fs::path> read = files_of(rank);
  std::vector<fs::path> folders;
  for (const fs::path& file : read)
    if (std::find(folders.begin(), folders.end(), file.parent_path()) == folders.end())
      folders.push_back(file.parent_path());
  std::vector<std::string> unread;
  std::error_code error;
  for (const fs::path& folder : folders)
    for (const fs::directory_entry& entry : fs::directory_iterator(folder, error)) {
      const std::string name = entry.path().filename().string();
      const bool another_ranks =
          std::any_of(std::begin(kPatterns), std::end(kPatterns), [&](const NamePattern& pattern) {
            const auto of = rank_in(name, pattern);
            return of && *of != rank.rank;
          });
      const bool read_here = std::find(read.begin(), read.end(), entry.path()) != read.end();
      if (entry.is_regular_file(error) && !another_ranks && !read_here) unread.push_back(name);
    }
  std::sort(unread.begin(), unread.end());
  return unread;
}

}  // namespace parity::importers::trace
