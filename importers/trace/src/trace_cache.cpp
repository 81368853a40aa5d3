// readable_trace: foreign traces converted once, beside the file, and reused.
#include <unistd.h>

#include "ascend/ascend_import.hpp"
#include "mindspore/mindspore_import.hpp"
#include "parity/core/error.hpp"
#include "parity/importers/trace/trace_import.hpp"
#include "parity/profiler/trace_reader.hpp"
#include "trace_source_stamp.hpp"

namespace parity::importers::trace {
namespace {

std::string file_stamp(const std::filesystem::path& file) {
  const auto time = std::filesystem::last_write_time(file).time_since_epoch();
  return "bytes=" + std::to_string(std::filesystem::file_size(file)) +
         " mtime_ns=" + std::to_string(std::chrono::nanoseconds(time).count());
}

}  // namespace

// A folder (MindSpore's or CANN's profiler output): every profiler file it
// holds, by name.
std::string source_stamp(const std::filesystem::path& source) {
  std::string stamp;
  if (std::filesystem::is_directory(source)) {
    std::vector<std::filesystem::path> files = ascend_output_files(source);
    if (files.empty()) files = mindspore_profile_files(source);
    for (const std::filesystem::path& file : files)
      stamp += file.lexically_relative(source).string() + " " + file_stamp(file) + " ";
  } else {
    stamp = file_stamp(source) + " ";
  }
  return stamp + "importer=" + std::to_string(kImporterVersion);
}

namespace {

bool cache_is_current(const std::filesystem::path& cache, const std::filesystem::path& source) {
  if (!std::filesystem::exists(cache)) return false;
  try {
    profiler::TraceReader reader(cache);
    return reader.meta_value("import.source_stamp") == source_stamp(source) &&
           reader.meta_value("complete") == "1";
  } catch (const Error&) {
    return false;  // a damaged or foreign file in the cache's place: made again
  }
}

}  // namespace

std::filesystem::path readable_trace(const std::filesystem::path& path,
                                     const ImportOptions& options) {
  const auto format = sniff_trace_format(path);
  if (!format || *format == TraceFormat::kParity) return path;
  // Beside a folder, not in it: "prof/" -> "prof.parity.db".
  std::filesystem::path cache = path.has_filename() ? path : path.parent_path();
  cache += ".parity.db";
  if (cache_is_current(cache, path)) return cache;
  // Written under another name and renamed, so that an import that is
  // stopped halfway never leaves a cache that looks whole.
  std::filesystem::path partial = cache;
  partial += ".partial-" + std::to_string(getpid());
  std::error_code ignored;
  std::filesystem::remove(partial, ignored);
  try {
    import_trace(path, partial, options);
  } catch (...) {
    std::filesystem::remove(partial, ignored);
    throw;
  }
  std::error_code error;
  std::filesystem::rename(partial, cache, error);
  if (error) {
    std::filesystem::remove(partial, ignored);
    throw Error("cannot keep the imported trace beside the file: " + error.message(),
                cache.string(), "run `parity import FILE -o RUN.db` and give RUN.db instead");
  }
  return cache;
}

}  // namespace parity::importers::trace
