#include "parity/importers/dump/tensor_dump.hpp"

#include <algorithm>
#include <fstream>
#include <set>
#include <tuple>

#include "parity/core/error.hpp"
#include "parity/core/log.hpp"
#include "parity/importers/numpy.hpp"

namespace parity::importers {
namespace fs = std::filesystem;
namespace {

void read_manifest(const fs::path& manifest, DumpHeader& header, std::vector<DumpRecord>& records) {
  std::ifstream in(manifest, std::ios::binary);
  if (!in) throw Error("cannot open the manifest", manifest.string(), "check its permissions");
  std::string line;
  std::int64_t number = 0;
  bool have_header = false;
  std::set<std::tuple<std::int64_t, std::string, std::string, std::string>> keys;
  while (std::getline(in, line)) {
    ++number;
    const std::string where = manifest.string() + ":" + std::to_string(number);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (!have_header) {
      header = parse_manifest_header(line, where);
      have_header = true;
      continue;
    }
    // A run killed mid-write leaves its last line without a newline: that
    // record is dropped, everything before it is still the dump.
    const bool unterminated = in.eof();
    DumpRecord record;
    try {
      record = parse_manifest_record(line, where);
    } catch (const Error&) {
      if (!unterminated) throw;
      log::warning(where + ": an unfinished last record (the run stopped while writing it) is left out");
      break;
    }
    if (!records.empty() && record.index <= records.back().index)
      throw Error("index " + std::to_string(record.index) + " does not follow " +
                      std::to_string(records.back().index),
                  where, "records are listed in execution order");
    if (!keys.emplace(record.step, record.phase, record.role, record.name).second)
      throw Error("a second record for " + record.describe(), where,
                  "(step, phase, role, name) must be unique");
    records.push_back(std::move(record));
  }
  if (!have_header)
    throw Error("the manifest is empty", manifest.string(), "was the dump interrupted before it began?");
}

void list_npy_files(const fs::path& dir, std::vector<DumpRecord>& records) {
  std::vector<fs::path> files;
  std::error_code error;
  for (fs::recursive_directory_iterator it(dir, error), end; !error && it != end; it.increment(error))
    if (it->is_regular_file() && it->path().extension() == ".npy")
      files.push_back(fs::relative(it->path(), dir));
  if (error) throw Error("cannot list the directory: " + error.message(), dir.string(), "check its permissions");
  if (files.empty())
    throw Error("neither a manifest.jsonl nor any .npy file", dir.string(),
                "give a dump directory (parity-train --dump) or a directory of .npy files");
  std::sort(files.begin(), files.end(),
            [](const fs::path& a, const fs::path& b) { return natural_less(a.string(), b.string()); });
  for (const fs::path& file : files) {
    const auto source = open_npy(dir / file);
    const TensorEntry& entry = source->entries().front();
    DumpRecord record;
    record.index = static_cast<std::int64_t>(records.size());
    std::string name = file.string();
    name.resize(name.size() - 4);  // ".npy"
    record.name = record.module = name;
    record.dtype = entry.dtype;
    record.shape = entry.shape;
    record.file = file.string();
    records.push_back(std::move(record));
  }
}

}  // namespace

bool natural_less(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t i_end = i, j_end = j;
      while (i_end < a.size() && digit(a[i_end])) ++i_end;
      while (j_end < b.size() && digit(b[j_end])) ++j_end;
      // Compare the numbers without leading zeros: longer is larger.
      std::string_view x = a.substr(i, i_end - i), y = b.substr(j, j_end - j);
      x.remove_prefix(std::min(x.find_first_not_of('0'), x.size()));
      y.remove_prefix(std::min(y.find_first_not_of('0'), y.size()));
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      i = i_end;
      j = j_end;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  if ((a.size() - i) != (b.size() - j)) return a.size() - i < b.size() - j;
  return a < b;  // equal up to leading zeros: any consistent order
}

TensorDump TensorDump::open(const fs::path& dir) {
  std::error_code error;
  if (!fs::is_directory(dir, error))
    throw Error(fs::exists(dir, error) ? "not a directory" : "no such directory", dir.string(),
                "give a dump directory (parity-train --dump) or a directory of .npy files");
  TensorDump dump;
  dump.dir_ = dir;
  const fs::path manifest = dir / std::string(kManifestFile);
  if (fs::exists(manifest, error)) {
    dump.has_manifest_ = true;
    read_manifest(manifest, dump.header_, dump.records_);
  } else {
    list_npy_files(dir, dump.records_);
  }
  return dump;
}

NamedTensor TensorDump::read(const DumpRecord& record) const {
  if (!record.file)
    throw Error("the dump holds statistics only for " + record.describe(), dir_.string(),
                "dump again without --dump-stats-only to compare values");
  const fs::path path = dir_ / *record.file;
  const auto source = open_npy(path);
  const TensorEntry& entry = source->entries().front();
  if (entry.dtype != record.dtype || entry.shape != record.shape)
    throw Error("the file holds " + std::string(dtype_name(entry.dtype)) + " " +
                    shape_to_string(entry.shape) + ", the manifest says " +
                    std::string(dtype_name(record.dtype)) + " " + shape_to_string(record.shape),
                path.string(), "the file was replaced after the dump was written");
  NamedTensor tensor = source->read(entry.name);
  tensor.name = record.name;
  return tensor;
}

}  // namespace parity::importers
