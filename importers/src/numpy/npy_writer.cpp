// write_npy and write_npz: np.save's header, then the tensor's bytes.
#include <unistd.h>

#include "io/posix_file.hpp"
#include "numpy/npy_header.hpp"
#include "parity/core/error.hpp"
#include "parity/importers/numpy.hpp"
#include "zip/zip_writer.hpp"

namespace parity::importers {
namespace {

std::string at_tensor(const std::filesystem::path& path, const NamedTensor& tensor) {
  return path.string() + ", tensor '" + tensor.name + "'";
}

// Checks the tensor and returns its header, before any file is touched.
std::string checked_header(const std::filesystem::path& path, const NamedTensor& tensor) {
  tensor.check(path.string());
  return format_npy_header(tensor.dtype, tensor.shape, at_tensor(path, tensor));
}

void write_header_and_data(const std::filesystem::path& path, const std::string& header,
                           std::span<const std::byte> bytes) {
  FileDescriptor fd = create_for_writing(path, ".npy file");
  try {
    write_exactly(fd.get(), path, std::as_bytes(std::span(header)));
    write_exactly(fd.get(), path, bytes);
    fd.close_checked(path);
  } catch (...) {
    ::unlink(path.c_str());
    throw;
  }
}

}  // namespace

void write_npy(const std::filesystem::path& path, const NamedTensor& tensor) {
  write_header_and_data(path, checked_header(path, tensor), tensor.data);
}

void write_npy(const std::filesystem::path& path, DType dtype, std::span<const std::int64_t> shape,
               std::span<const std::byte> bytes) {
  const auto expected = checked_byte_size(dtype, shape);
  if (!expected || *expected != static_cast<std::int64_t>(bytes.size()))
    throw Error("the data holds " + std::to_string(bytes.size()) + " bytes, not the " +
                    std::string(dtype_name(dtype)) + " elements of shape " + shape_to_string(shape),
                path.string());
  write_header_and_data(path, format_npy_header(dtype, shape, path.string()),
                        bytes);
}

void write_npz(const std::filesystem::path& path, std::span<const NamedTensor> tensors,
               const NpzWriteOptions& options) {
  std::vector<std::string> headers;
  for (const NamedTensor& tensor : tensors) headers.push_back(checked_header(path, tensor));
  ZipWriter writer(path, options.force_zip64);
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const std::span<const std::byte> pieces[] = {std::as_bytes(std::span(headers[i])),
                                                 tensors[i].data};
    writer.add_stored(tensors[i].name + ".npy", pieces);
  }
  writer.finish();
}

}  // namespace parity::importers
