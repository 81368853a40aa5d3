#include "parity/importers/grad_probe/grad_probe_writer.hpp"

#include <bit>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "parity/core/error.hpp"

namespace parity::importers {
namespace fs = std::filesystem;

// A record's header and bit words are written as the machine holds them.
static_assert(std::endian::native == std::endian::little, "the probe format is little-endian");

GradProbeWriter::GradProbeWriter(fs::path dir, GradProbeHeader header)
    : dir_(std::move(dir)),
      header_(std::move(header)),
      record_(static_cast<std::size_t>(header_.record_bytes / 8), 0) {
  std::error_code error;
  if (fs::exists(dir_, error) && !fs::is_empty(dir_, error))
    throw Error("the probe directory exists and is not empty", dir_.string(),
                "choose a new directory; a probe is never mixed with another");
  fs::create_directories(dir_, error);
  if (error)
    throw Error("cannot create the probe directory: " + error.message(), dir_.string(),
                "check the parent directory exists and is writable");
  const fs::path header_path = dir_ / std::string(kGradProbeHeaderFile);
  std::ofstream header_file(header_path);
  header_file << grad_probe_header_json(header_);
  if (!header_file.flush())
    throw Error("cannot write the probe header", header_path.string(), "check free disk space");
  const fs::path signs = dir_ / std::string(kGradProbeSignsFile);
  signs_ = std::fopen(signs.c_str(), "wb");
  if (!signs_)
    throw Error(std::string("cannot create the sign file: ") + std::strerror(errno), signs.string(),
                "check the directory is writable");
  std::memcpy(record_.data(), kGradProbeRecordMagic, 4);
  const auto count = static_cast<std::uint32_t>(header_.parameters.size());
  std::memcpy(reinterpret_cast<char*>(record_.data()) + 4, &count, 4);
}

GradProbeWriter::~GradProbeWriter() {
  if (signs_) std::fclose(signs_);
}

std::span<std::uint64_t> GradProbeWriter::parameter_words(std::size_t index) {
  const ProbedParameter& p = header_.parameters.at(index);
  return std::span(record_).subspan(static_cast<std::size_t>(p.offset / 8),
                                    static_cast<std::size_t>(p.bytes / 8));
}

void GradProbeWriter::write_step(std::int64_t step) {
  std::memcpy(&record_[1], &step, 8);
  if (std::fwrite(record_.data(), 8, record_.size(), signs_) != record_.size() ||
      std::fflush(signs_) != 0)
    throw Error("writing step " + std::to_string(step) + " failed",
                (dir_ / std::string(kGradProbeSignsFile)).string(), "check free disk space");
  ++steps_;
}

}  // namespace parity::importers
