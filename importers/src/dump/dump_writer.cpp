#include "parity/importers/dump/dump_writer.hpp"

#include <cerrno>
#include <cstring>

#include "parity/core/error.hpp"
#include "parity/importers/numpy.hpp"

namespace parity::importers {
namespace fs = std::filesystem;

DumpWriter::DumpWriter(fs::path dir, const DumpHeader& header)
    : dir_(std::move(dir)), stats_only_(header.stats_only) {
  std::error_code error;
  if (fs::exists(dir_, error) && !fs::is_empty(dir_, error))
    throw Error("the dump directory exists and is not empty", dir_.string(),
                "choose a new directory; a dump is never mixed with another");
  fs::create_directories(dir_ / "tensors", error);
  if (error)
    throw Error("cannot create the dump directory: " + error.message(), dir_.string(),
                "check the parent directory exists and is writable");
  const fs::path manifest = dir_ / std::string(kManifestFile);
  manifest_ = std::fopen(manifest.c_str(), "wb");
  if (!manifest_)
    throw Error(std::string("cannot create the manifest: ") + std::strerror(errno), manifest.string(),
                "check the directory is writable");
  const std::string line = manifest_header_line(header) + "\n";
  if (std::fputs(line.c_str(), manifest_) < 0 || std::fflush(manifest_) != 0)
    throw Error("writing the manifest failed", manifest.string(), "check free disk space");
}

DumpWriter::~DumpWriter() {
  if (manifest_) std::fclose(manifest_);
}

const DumpRecord& DumpWriter::write(DumpRecord record, std::span<const float> values) {
  record.dtype = DType::kFloat32;
  record.stats = compute_stats(values);
  return write_bytes(std::move(record), std::as_bytes(values));
}

const DumpRecord& DumpWriter::write(DumpRecord record, std::span<const double> values) {
  record.dtype = DType::kFloat64;
  record.stats = compute_stats(values);
  return write_bytes(std::move(record), std::as_bytes(values));
}

const DumpRecord& DumpWriter::write(DumpRecord record, std::span<const std::int64_t> values) {
  record.dtype = DType::kInt64;
  record.stats = compute_stats(values);
  return write_bytes(std::move(record), std::as_bytes(values));
}

const DumpRecord& DumpWriter::write_bytes(DumpRecord record, std::span<const std::byte> bytes) {
  record.index = next_index_;
  record.file.reset();
  if (!stats_only_) {
    record.file = dump_file_name(record);
    write_npy(dir_ / *record.file, record.dtype, record.shape, bytes);
    bytes_written_ += bytes.size();
  } else {
    const auto expected = checked_byte_size(record.dtype, record.shape);
    if (!expected || *expected != static_cast<std::int64_t>(bytes.size()))
      throw Error("the values do not fill the shape " + shape_to_string(record.shape),
                  record.describe());
  }
  const std::string line = manifest_record_line(record) + "\n";
  if (std::fputs(line.c_str(), manifest_) < 0 || std::fflush(manifest_) != 0)
    throw Error("writing the manifest failed", (dir_ / std::string(kManifestFile)).string(),
                "check free disk space");
  ++next_index_;
  last_ = std::move(record);
  return last_;
}

}  // namespace parity::importers
