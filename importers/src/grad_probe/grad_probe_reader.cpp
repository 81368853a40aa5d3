#include "parity/importers/grad_probe/grad_probe_reader.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "parity/core/error.hpp"

namespace parity::importers {
namespace fs = std::filesystem;
namespace {

constexpr const char* kFormatHint = "a gradient-sign probe is described in docs/formats/grad-probe.md";

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  if (!in)
    throw Error("cannot open the probe header", path.string(),
                "give a directory written by --probe-dir (it holds probe.json and signs.bin)");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

GradProbeReader::GradProbeReader(const fs::path& dir)
    : dir_(dir), signs_path_(dir / std::string(kGradProbeSignsFile)) {
  std::error_code error;
  if (!fs::is_directory(dir_, error))
    throw Error("not a directory", dir_.string(), "give a directory written by --probe-dir");
  const fs::path header_path = dir_ / std::string(kGradProbeHeaderFile);
  header_ = parse_grad_probe_header(read_text(header_path), header_path.string());
  signs_.reset(std::fopen(signs_path_.c_str(), "rb"));
  if (!signs_)
    throw Error(std::string("cannot open the sign file: ") + std::strerror(errno),
                signs_path_.string(), kFormatHint);
  const auto size = static_cast<std::int64_t>(fs::file_size(signs_path_, error));
  if (error) throw Error("cannot read the size of the sign file", signs_path_.string(), kFormatHint);
  records_ = size / header_.record_bytes;
  if (size % header_.record_bytes != 0)
    throw Error("the file ends inside record " + std::to_string(records_) + ": " +
                    std::to_string(size % header_.record_bytes) + " of its " +
                    std::to_string(header_.record_bytes) + " bytes are there",
                signs_path_.string() + " byte " + std::to_string(records_ * header_.record_bytes),
                "the run stopped while writing it, or the file was cut; records are " +
                    std::to_string(header_.record_bytes) + " bytes (probe.json record_bytes)");
  record_.resize(static_cast<std::size_t>(header_.record_bytes / 8));
}

bool GradProbeReader::next() {
  if (read_ == records_) return false;
  const std::string where =
      signs_path_.string() + " byte " + std::to_string(read_ * header_.record_bytes);
  if (std::fread(record_.data(), 8, record_.size(), signs_.get()) != record_.size())
    throw Error("reading record " + std::to_string(read_) + " failed", where, kFormatHint);
  const char* bytes = reinterpret_cast<const char*>(record_.data());
  if (std::memcmp(bytes, kGradProbeRecordMagic, 4) != 0)
    throw Error("record " + std::to_string(read_) + " does not start with PGSR", where,
                "the file is corrupt, or not written with this probe.json");
  std::uint32_t count = 0;
  std::memcpy(&count, bytes + 4, 4);
  if (count != header_.parameters.size())
    throw Error("record " + std::to_string(read_) + " holds " + std::to_string(count) +
                    " parameters, probe.json lists " + std::to_string(header_.parameters.size()),
                where, "the file is corrupt, or not written with this probe.json");
  std::int64_t step = 0;
  std::memcpy(&step, bytes + 8, 8);
  if (step < 0 || step <= step_)
    throw Error("record " + std::to_string(read_) + " is step " + std::to_string(step) +
                    (step_ >= 0 ? ", after step " + std::to_string(step_) : std::string()),
                where, "steps rise from record to record; the file is corrupt");
  step_ = step;
  ++read_;
  return true;
}

std::span<const std::uint64_t> GradProbeReader::parameter_words(std::size_t index) const {
  const ProbedParameter& p = header_.parameters.at(index);
  return std::span(record_).subspan(static_cast<std::size_t>(p.offset / 8),
                                    static_cast<std::size_t>(p.bytes / 8));
}

}  // namespace parity::importers
