#include "ascend/ascend_output_dir.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <optional>
#include <sstream>

namespace parity::importers::trace {
namespace {

namespace fs = std::filesystem;

bool is_dir(const fs::path& path) {
  std::error_code error;
  return fs::is_directory(path, error);
}

fs::path if_file(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error) ? path : fs::path();
}

std::string lowercase_text_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  std::string lower = text.str();
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

// The rank in "profiler_info_<rank>.json".
std::optional<std::int64_t> info_rank(const std::string& name) {
  constexpr std::string_view kPrefix = "profiler_info_", kSuffix = ".json";
  if (!name.starts_with(kPrefix) || !name.ends_with(kSuffix)) return std::nullopt;
  const std::string_view digits =
      std::string_view(name).substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
  std::int64_t rank = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), rank);
  if (error != std::errc() || end != digits.data() + digits.size() || digits.empty())
    return std::nullopt;
  return rank;
}

// The profiler's own files name the framework (torch_npu's config lists
// "ProfilerActivity.NPU", its environment PYTORCH_NPU_ALLOC_CONF); failing
// that, the folder's suffix does (MindSpore: _ascend_ms, torch_npu: _ascend_pt).
void find_framework(const fs::path& rank_dir, AscendRankFiles& files) {
  for (const fs::path& file : {files.profiler_info, files.profiler_metadata}) {
    if (file.empty()) continue;
    const std::string text = lowercase_text_of(file);
    if (text.find("mindspore") != std::string::npos) {
      files.framework = "MindSpore";
    } else if (text.find("torch_npu") != std::string::npos ||
               text.find("profileractivity.") != std::string::npos ||
               text.find("pytorch_npu") != std::string::npos) {
      files.framework = "PyTorch (torch_npu)";
    } else {
      continue;
    }
    files.framework_evidence = file.filename().string();
    return;
  }
  const std::string name = rank_dir.filename().string();
  if (name.ends_with("_ascend_ms")) files.framework = "MindSpore";
  if (name.ends_with("_ascend_pt")) files.framework = "PyTorch (torch_npu)";
  if (!files.framework.empty()) files.framework_evidence = "the folder's name, " + name;
}

// The rank folder `rank_dir` (holding ASCEND_PROFILER_OUTPUT/).
AscendRankFiles rank_files(const fs::path& rank_dir) {
  AscendRankFiles files;
  files.output = rank_dir / kAscendOutputFolder;
  files.trace_view = if_file(files.output / "trace_view.json");
  files.kernel_details = if_file(files.output / "kernel_details.csv");
  files.op_statistic = if_file(files.output / "op_statistic.csv");
  files.step_trace_time = if_file(files.output / "step_trace_time.csv");
  files.profiler_metadata = if_file(rank_dir / "profiler_metadata.json");
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(rank_dir, error))
    if (const auto rank = info_rank(entry.path().filename().string())) {
      files.profiler_info = entry.path();
      files.rank = *rank;
      files.rank_from_file = true;
    }
  find_framework(rank_dir, files);
  return files;
}

}  // namespace

std::vector<AscendRankFiles> find_ascend_ranks(const fs::path& dir) {
  if (!is_dir(dir)) return {};
  fs::path given = fs::absolute(dir).lexically_normal();
  if (given.filename().empty()) given = given.parent_path();  // "out/" -> "out"
  // The output folder itself: its parent is the rank's folder.
  if (given.filename() == kAscendOutputFolder) return {rank_files(given.parent_path())};
  if (is_dir(dir / kAscendOutputFolder)) return {rank_files(dir)};
  std::vector<fs::path> rank_dirs;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, error))
    if (is_dir(entry.path() / kAscendOutputFolder)) rank_dirs.push_back(entry.path());
  std::sort(rank_dirs.begin(), rank_dirs.end());
  std::vector<AscendRankFiles> ranks;
  for (const fs::path& rank_dir : rank_dirs) {
    ranks.push_back(rank_files(rank_dir));
    // Without profiler_info_<rank>.json, the folders' order stands for the rank.
    if (!ranks.back().rank_from_file)
      ranks.back().rank = static_cast<std::int64_t>(ranks.size() - 1);
  }
  std::stable_sort(
      ranks.begin(), ranks.end(),
      [](const AscendRankFiles& a, const AscendRankFiles& b) { return a.rank < b.rank; });
  return ranks;
}

std::vector<fs::path> files_of(const AscendRankFiles& rank) {
  std::vector<fs::path> files;
  for (const fs::path* file : {&rank.trace_view, &rank.kernel_details, &rank.op_statistic,
                               &rank.step_trace_time, &rank.profiler_info, &rank.profiler_metadata})
    if (!file->empty()) files.push_back(*file);
  return files;
}

}  // namespace parity::importers::trace
