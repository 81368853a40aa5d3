// torch.save's zip format (PyTorch 1.6 and later): every member sits in one
// folder, the archive name (the file's stem, or "archive"): data.pkl is the
// pickle, data/<key> each storage's raw bytes (stored uncompressed, 64-byte
// aligned), byteorder (PyTorch 2.1 and later) "little" or "big".
#include <cstring>
#include <unordered_map>

#include "parity/core/error.hpp"
#include "parity/importers/pickle.hpp"
#include "parity/importers/zip_archive.hpp"
#include "pytorch/torch_checkpoint_formats.hpp"
#include "pytorch/torch_checkpoint_source.hpp"
#include "zip/zip_directory.hpp"

namespace parity::importers {
namespace {

namespace fs = std::filesystem;

// data.pkl holds names and shapes only (about 100 bytes per tensor); a larger
// one is not a checkpoint we can index.
constexpr std::uint64_t kMaxPickleBytes = std::uint64_t{1} << 30;
constexpr std::uint64_t kMaxByteOrderBytes = 16;

constexpr std::string_view kResaveHint =
    "the checkpoint is damaged; copy it again from its source, or save it again with torch.save";

// "<archive>/": the folder of the first member, as PyTorch's reader takes it.
std::string archive_folder(const ZipArchive& zip, const fs::path& path) {
  if (zip.members().empty())
    throw Error("the zip file is empty, so it is not a PyTorch checkpoint", path.string(),
                "torch.save writes a zip holding data.pkl");
  const std::string& first = zip.members().front().name;
  const auto slash = first.find('/');
  if (slash == std::string::npos)
    throw Error("not a PyTorch checkpoint: its first member '" + first + "' is not in a folder",
                at_member(path, first), "torch.save puts every member in one folder");
  return first.substr(0, slash + 1);
}

const ZipMember& pickle_member(const ZipArchive& zip, const std::string& folder,
                               const fs::path& path) {
  if (zip.find(folder + "constants.pkl"))
    throw Error("a TorchScript archive (torch.jit.save), not a torch.save checkpoint",
                path.string(),
                "in Python: torch.save(torch.jit.load(path).state_dict(), 'weights.pth')");
  const ZipMember* member = zip.find(folder + "data.pkl");
  if (!member)
    throw Error("not a PyTorch checkpoint: the zip holds no '" + folder + "data.pkl'",
                path.string(), "torch.save writes <archive>/data.pkl; this is another zip");
  return *member;
}

TorchByteOrder byte_order(const ZipArchive& zip, const std::string& folder, const fs::path& path) {
  const ZipMember* member = zip.find(folder + "byteorder");
  if (!member) return TorchByteOrder::kLittle;  // written only since PyTorch 2.1; before, little
  const auto bytes = zip.read_all(*member, kMaxByteOrderBytes);
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (text == "little") return TorchByteOrder::kLittle;
  if (text == "big") return TorchByteOrder::kBig;
  throw Error("the byte order record says '" + std::string(text) + "', not 'little' or 'big'",
              at_member(path, member->name), std::string(kResaveHint));
}

// Storages are the members data/<key>, each exactly as large as its pickle says.
class ZipStorageReader final : public TorchStorageReader {
 public:
  ZipStorageReader(ZipArchive zip, const std::string& folder, const TorchPickleIndex& index)
      : zip_(std::move(zip)) {
    for (const auto& [key, storage] : index.storages) {
      const std::string name = folder + "data/" + key;
      const ZipMember* member = zip_.find(name);
      if (!member)
        throw Error("storage '" + key + "' has no member '" + name + "' in the zip",
                    zip_.path().string(), std::string(kResaveHint));
      if (member->uncompressed_size != storage.byte_size)
        throw Error("storage '" + key + "' holds " + std::to_string(member->uncompressed_size) +
                        " bytes, but the pickle describes " + std::to_string(storage.byte_size) +
                        " (" + std::to_string(storage.element_count) + " elements of " +
                        std::string(storage.type->name) + ")",
                    at_member(zip_.path(), name), std::string(kResaveHint));
      members_.emplace(key, *member);
    }
  }

  void read(const TorchStorage& storage, std::uint64_t offset,
            std::span<std::byte> out) const override {
    const ZipMember& member = members_.at(storage.key);
    if (member.is_stored()) {
      zip_.read_stored(member, offset, out);
      return;
    }
    // A zip rewritten with compression: the member is inflated whole.
    const auto bytes = zip_.read_all(member, member.uncompressed_size);
    std::memcpy(out.data(), bytes.data() + offset, out.size());
  }

  bool reads_whole_storage(const TorchStorage& storage) const override {
    return !members_.at(storage.key).is_stored();
  }

 private:
  ZipArchive zip_;
  std::unordered_map<std::string, ZipMember> members_;  // by storage key
};

}  // namespace

std::unique_ptr<TensorSource> open_torch_zip_checkpoint(const fs::path& path) {
  ZipArchive zip = ZipArchive::open(path);
  const std::string folder = archive_folder(zip, path);
  const ZipMember& member = pickle_member(zip, folder, path);
  const std::vector<std::byte> bytes = zip.read_all(member, kMaxPickleBytes);
  PickleBytesInput input(bytes);
  const std::string where = at_member(path, member.name);
  const Pickle pickle = read_pickle(input, where);
  TorchPickleIndex index = index_torch_pickle(pickle, path.string(), where, path.stem().string());
  const TorchByteOrder order = byte_order(zip, folder, path);
  auto reader = std::make_unique<ZipStorageReader>(std::move(zip), folder, index);
  return std::make_unique<TorchCheckpointSource>("pytorch", path, std::move(index),
                                                 std::move(reader), order);
}

}  // namespace parity::importers
