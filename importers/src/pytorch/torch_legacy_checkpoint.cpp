// torch.save's stream format (before PyTorch 1.6, and with
// _use_new_zipfile_serialization=False since): five pickles back to back -
// the magic number 0x1950a86a20f9469cfc6c, the protocol version 1001, a dict
// of the writer's system info, the object, and the list of storage keys -
// then, in that list's order, each storage as an 8-byte little-endian element
// count followed by its bytes (little-endian whatever the writer's host).
#include <array>
#include <set>
#include <unordered_map>

#include "io/posix_file.hpp"
#include "io/read_ahead_window.hpp"
#include "parity/core/error.hpp"
#include "parity/importers/pickle.hpp"
#include "pytorch/torch_checkpoint_formats.hpp"
#include "pytorch/torch_checkpoint_source.hpp"

namespace parity::importers {
namespace {

namespace fs = std::filesystem;

// The magic number as the LONG1 pickle stores it: little-endian two's complement.
constexpr std::string_view kMagicBytes = "\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19";
constexpr std::int64_t kProtocolVersion = 1001;

constexpr std::string_view kResaveHint =
    "the checkpoint is damaged; copy it again from its source, or save it again with torch.save";

// The pickles, read through a small window of the file.
class PickleFileInput final : public PickleInput {
 public:
  explicit PickleFileInput(ReadAheadWindow& window) : window_(window) {}
  std::uint64_t position() const override { return position_; }
  std::uint64_t remaining() const override { return window_.file_size() - position_; }
  std::span<const std::byte> take(std::size_t count) override {
    scratch_.resize(count);
    window_.read(position_, scratch_);
    position_ += count;
    return scratch_;
  }

 private:
  ReadAheadWindow& window_;
  std::uint64_t position_ = 0;
  std::vector<std::byte> scratch_;
};

void check_magic(const Pickle& magic, const fs::path& path) {
  const PickleValue& number = magic[magic.root];
  if (number.kind != PickleKind::kLargeInt || number.text != kMagicBytes)
    throw Error("not a PyTorch checkpoint: the first pickle is not torch.save's magic number",
                path.string() + ", offset 0",
                "torch.save writes a zip or a stream that starts with its magic number; this "
                "file is another pickle");
}

void check_version(const Pickle& version, const fs::path& path) {
  const PickleValue& protocol = version[version.root];
  if (protocol.kind != PickleKind::kInt || protocol.integer != kProtocolVersion)
    throw Error(
        "unknown legacy protocol version (the file says " +
            (protocol.kind == PickleKind::kInt ? std::to_string(protocol.integer)
                                               : std::string(pickle_kind_name(protocol.kind))) +
            ", PyTorch writes 1001)",
        path.string() + ", offset " + std::to_string(protocol.offset), std::string(kResaveHint));
}

// Where each storage's bytes are: the storages follow the pickles, in the
// order of the key list, each after its 8-byte element count.
class LegacyStorageReader final : public TorchStorageReader {
 public:
  LegacyStorageReader(OpenedFile file, const fs::path& path, const Pickle& keys,
                      std::uint64_t offset, const TorchPickleIndex& index)
      : file_(std::move(file)), path_(path) {
    for (const std::string& key : key_list(keys)) {
      const auto found = index.storages.find(key);
      if (found == index.storages.end())
        throw Error("the storage list names '" + key + "', which no tensor in the pickle uses",
                    path_.string(), std::string(kResaveHint));
      offset = place(found->second, offset);
    }
    for (const auto& [key, storage] : index.storages)
      if (!data_offsets_.contains(key))
        throw Error("storage '" + key + "' is used by the pickle but missing from the storage list",
                    path_.string(), std::string(kResaveHint));
  }

  void read(const TorchStorage& storage, std::uint64_t offset,
            std::span<std::byte> out) const override {
    read_exactly(file_.fd.get(), path_, data_offsets_.at(storage.key) + offset, out,
                 "storage '" + storage.key + "'");
  }

  bool reads_whole_storage(const TorchStorage&) const override { return false; }

 private:
  std::vector<std::string> key_list(const Pickle& keys) const {
    const PickleValue& list = keys[keys.root];
    if (list.kind != PickleKind::kList)
      throw Error(
          "the storage key list is a " + std::string(pickle_kind_name(list.kind)) + ", not a list",
          path_.string() + ", offset " + std::to_string(list.offset), std::string(kResaveHint));
    std::vector<std::string> out;
    std::set<std::string, std::less<>> seen;
    for (const PickleId item : list.items) {
      if (keys[item].kind != PickleKind::kStr || !seen.insert(keys[item].text).second)
        throw Error("the storage key list holds a duplicate or a non-string",
                    path_.string() + ", offset " + std::to_string(keys[item].offset),
                    std::string(kResaveHint));
      out.push_back(keys[item].text);
    }
    return out;
  }

  // Checks the record of `storage` at `offset`; returns the offset after it.
  std::uint64_t place(const TorchStorage& storage, std::uint64_t offset) {
    const std::string where = path_.string() + ", offset " + std::to_string(offset);
    if (file_.size < 8 || offset > file_.size - 8)
      throw Error("the file ends before storage '" + storage.key + "'", where,
                  std::string(kResaveHint));
    std::array<std::byte, 8> count_bytes{};
    read_exactly(file_.fd.get(), path_, offset, count_bytes, "a storage's element count");
    std::uint64_t count = 0;
    for (std::size_t i = count_bytes.size(); i-- > 0;)
      count = (count << 8) | std::to_integer<std::uint64_t>(count_bytes[i]);
    if (count != storage.element_count)
      throw Error("storage '" + storage.key + "' holds " + std::to_string(count) +
                      " elements in the file, but the pickle describes " +
                      std::to_string(storage.element_count),
                  where, std::string(kResaveHint));
    const std::uint64_t data = offset + 8;
    if (storage.byte_size > file_.size - data)
      throw Error("storage '" + storage.key + "' (" + std::to_string(storage.byte_size) +
                      " bytes) runs past the end of the file",
                  where, std::string(kResaveHint));
    data_offsets_.emplace(storage.key, data);
    return data + storage.byte_size;
  }

  OpenedFile file_;
  fs::path path_;
  std::unordered_map<std::string, std::uint64_t> data_offsets_;  // by storage key
};

}  // namespace

std::unique_ptr<TensorSource> open_torch_legacy_checkpoint(const fs::path& path) {
  OpenedFile file = open_for_reading(path, "PyTorch checkpoint");
  ReadAheadWindow window(file.fd.get(), path, file.size);
  PickleFileInput input(window);
  const std::string where = path.string();
  check_magic(read_pickle(input, where), path);
  check_version(read_pickle(input, where), path);
  read_pickle(input, where);  // system info: the writer's byte order and C type sizes
  const Pickle object = read_pickle(input, where);
  const Pickle keys = read_pickle(input, where);
  TorchPickleIndex index = index_torch_pickle(object, where, where, path.stem().string());
  auto reader =
      std::make_unique<LegacyStorageReader>(std::move(file), path, keys, input.position(), index);
  return std::make_unique<TorchCheckpointSource>("pytorch-legacy", path, std::move(index),
                                                 std::move(reader), TorchByteOrder::kLittle);
}

}  // namespace parity::importers
