// open_tensor_file and write_tensor_file: one entry point for every format,
// recognised by content when reading and by extension when writing.
#include <algorithm>
#include <array>
#include <cstring>

#include "io/posix_file.hpp"
#include "parity/core/error.hpp"
#include "parity/importers/mindspore_checkpoint.hpp"
#include "parity/importers/numpy.hpp"
#include "parity/importers/safetensors.hpp"
#include "parity/importers/tensor_source.hpp"
#include "parity/importers/torch_checkpoint.hpp"
#include "parity/importers/zip_archive.hpp"

namespace parity::importers {
namespace {

constexpr std::string_view kReadable =
    ".pth/.pt (PyTorch zip or legacy), .ckpt (MindSpore), .safetensors, .npy, .npz";

std::string lower_extension(const std::filesystem::path& path) {
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension;
}

std::vector<unsigned char> first_bytes(const std::filesystem::path& path, std::size_t count) {
  const OpenedFile file = open_for_reading(path, "tensor file");
  std::vector<unsigned char> head(std::min<std::uint64_t>(count, file.size));
  read_exactly(file.fd.get(), path, 0, std::as_writable_bytes(std::span(head)), "the first bytes");
  return head;
}

bool starts_with(const std::vector<unsigned char>& head, std::string_view magic) {
  return head.size() >= magic.size() && std::memcmp(head.data(), magic.data(), magic.size()) == 0;
}

// A zip holds a PyTorch checkpoint when it has a data.pkl (under any archive
// folder name), NumPy arrays otherwise.
std::unique_ptr<TensorSource> open_zip(const std::filesystem::path& path) {
  const ZipArchive archive = ZipArchive::open(path);
  for (const ZipMember& member : archive.members())
    if (member.name == "data.pkl" || member.name.ends_with("/data.pkl"))
      return open_torch_checkpoint(path);
  return open_npz(path);
}

}  // namespace

std::unique_ptr<TensorSource> open_tensor_file(const std::filesystem::path& path) {
  const std::vector<unsigned char> head = first_bytes(path, 16);
  const std::string extension = lower_extension(path);
  if (starts_with(head, "PK\x03\x04") || starts_with(head, "PK\x05\x06")) return open_zip(path);
  if (starts_with(head, "\x93NUMPY")) return open_npy(path);
  // safetensors: an 8-byte little-endian header length, then a JSON object.
  // (Tested before the pickle: the length's low byte may be 0x80.)
  if (head.size() >= 9 && head[8] == '{') return open_safetensors_source(path);
  // A pickle's PROTO opcode and protocol: PyTorch's legacy stream (or a lone
  // pickle, which its reader refuses clearly).
  if (head.size() >= 2 && head[0] == 0x80 && head[1] >= 2 && head[1] <= 5)
    return open_torch_checkpoint(path);
  // A MindSpore checkpoint is protobuf: field 1, length-delimited (0x0a); an
  // encrypted one starts with a little-endian block marker 0x7F3A5ED8..DA,
  // which its reader refuses by name. Anything else called .ckpt goes there
  // too, for the reader's precise error.
  const bool encrypted_marker = head.size() >= 4 && head[1] == 0x5e && head[2] == 0x3a &&
                                head[3] == 0x7f && head[0] >= 0xd8 && head[0] <= 0xda;
  if ((!head.empty() && head[0] == 0x0a) || encrypted_marker || extension == ".ckpt")
    return open_mindspore_checkpoint(path);
  if (head.empty())
    throw Error("the file is empty", path.string(), "expected " + std::string(kReadable));
  throw Error("not a tensor file Parity reads (no known signature in its first bytes)",
              path.string(), "expected " + std::string(kReadable));
}

void write_tensor_file(const std::filesystem::path& path, std::span<const NamedTensor> tensors) {
  const std::string extension = lower_extension(path);
  if (extension == ".safetensors") return write_safetensors(path, tensors);
  if (extension == ".npz") return write_npz(path, tensors);
  if (extension == ".ckpt") return write_mindspore_checkpoint(path, tensors);
  if (extension == ".npy") {
    if (tensors.size() != 1)
      throw Error("a .npy file holds one tensor, not " + std::to_string(tensors.size()),
                  path.string(), "write .npz for several tensors");
    return write_npy(path, tensors.front());
  }
  if (extension == ".pth" || extension == ".pt") return write_torch_checkpoint(path, tensors);
  throw Error("unknown output format '" + extension + "'", path.string(),
              "write .safetensors, .pth/.pt (PyTorch), .ckpt (MindSpore), .npz or .npy");
}

}  // namespace parity::importers
