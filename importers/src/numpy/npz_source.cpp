// A .npz archive behind TensorSource: each NAME.npy member is one tensor.
#include <cstring>
#include <map>

#include "numpy/npy_data.hpp"
#include "numpy/npy_header.hpp"
#include "parity/core/error.hpp"
#include "parity/importers/numpy.hpp"
#include "parity/importers/zip_archive.hpp"
#include "zip/zip_directory.hpp"

namespace parity::importers {
namespace {

constexpr std::string_view kNpySuffix = ".npy";

class NpzSource final : public TensorSource {
 public:
  explicit NpzSource(ZipArchive archive) : archive_(std::move(archive)) {
    for (const ZipMember& member : archive_.members()) {
      const std::string where = at_member(archive_.path(), member.name);
      if (!member.name.ends_with(kNpySuffix))
        throw Error("the member is not a .npy array", where,
                    "an .npz archive holds NAME.npy members only, as np.savez writes them");
      const auto read_prefix = [&](std::uint64_t max_bytes) {
        return archive_.read_prefix(member, max_bytes);
      };
      arrays_.push_back({&member, read_npy_header(read_prefix, member.uncompressed_size, where)});
      const NpyHeader& header = arrays_.back().header;
      entries_.push_back({member.name.substr(0, member.name.size() - kNpySuffix.size()),
                          header.dtype, header.shape});
      index_.emplace(entries_.back().name, entries_.size() - 1);
    }
  }

  std::string_view format() const override { return "npz"; }
  const std::filesystem::path& path() const override { return archive_.path(); }
  const std::vector<TensorEntry>& entries() const override { return entries_; }

  NamedTensor read(std::string_view name) const override {
    const std::size_t index = index_of(name);
    const TensorEntry& entry = entries_[index];
    const ZipMember& member = *arrays_[index].member;
    const NpyHeader& header = arrays_[index].header;
    // The member inflates in chunks; the header's bytes are skipped and the
    // data's land in place, so the array is never held twice here.
    std::vector<std::byte> stored(header.data_size);
    std::uint64_t position = 0;
    archive_.read_chunks(member, member.uncompressed_size, [&](std::span<const std::byte> chunk) {
      const std::uint64_t begin = position;
      position += chunk.size();
      if (position <= header.data_offset) return;
      const std::uint64_t skip = begin < header.data_offset ? header.data_offset - begin : 0;
      std::memcpy(stored.data() + (begin + skip - header.data_offset), chunk.data() + skip,
                  chunk.size() - skip);
    });
    return {entry.name, entry.dtype, entry.shape,
            npy_to_tensor_bytes(header, std::move(stored), at_member(path(), member.name))};
  }

 private:
  struct Array {
    const ZipMember* member;
    NpyHeader header;
  };

  std::size_t index_of(std::string_view name) const {
    if (const auto it = index_.find(name); it != index_.end()) return it->second;
    std::string hint = "the archive holds " + std::to_string(entries_.size()) + " arrays";
    if (!entries_.empty()) hint += ", e.g. '" + entries_.front().name + "'";
    throw Error("no tensor named '" + std::string(name) + "'", path().string(), hint);
  }

  ZipArchive archive_;
  std::vector<Array> arrays_;
  std::vector<TensorEntry> entries_;
  std::map<std::string, std::size_t, std::less<>> index_;
};

}  // namespace

std::unique_ptr<TensorSource> open_npz(const std::filesystem::path& path) {
  return std::make_unique<NpzSource>(ZipArchive::open(path));
}

}  // namespace parity::importers
