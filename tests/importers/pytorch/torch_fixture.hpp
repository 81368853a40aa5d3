// Shared by the PyTorch importer tests: the files torch_peer.py writes (once
// per run), their reference dumps, and a builder of hand-made pickles and
// legacy checkpoints. The check that an error names the file and the fault is
// parity::test::expect_error (expect_error.hpp).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "parity/importers/named_tensor.hpp"
#include "parity/importers/pickle.hpp"
#include "parity/importers/tensor_source.hpp"

namespace parity::test {

// The folder of the peer's files, made by running the peer once per build
// folder and version of torch_peer.py (REQUIREs that it succeeds).
const std::filesystem::path& torch_peer_dir();
// A file the peer's hostile pickles would create if anything ran them.
std::filesystem::path torch_attack_marker();

// <case>.ref.json and <case>.ref.bin (in `dir`, by default the peer's
// folder): the tensors PyTorch says the file holds.
std::vector<importers::NamedTensor> torch_reference(const std::string& name);
std::vector<importers::NamedTensor> torch_reference(const std::string& name,
                                                    const std::filesystem::path& dir);
// Every entry and every tensor of `source` equals the reference, in order,
// byte for byte.
void check_against_reference(const importers::TensorSource& source, const std::string& name);

std::string read_file(const std::filesystem::path& path);
void write_file(const std::filesystem::path& path, std::string_view bytes);

// Hand-made pickles, one opcode at a time (protocol 2 unless proto() says).
class PickleBuilder {
 public:
  PickleBuilder& proto(int version);
  PickleBuilder& raw(std::string_view bytes);
  PickleBuilder& op(char opcode);
  PickleBuilder& mark() { return op('('); }
  PickleBuilder& global(std::string_view module, std::string_view name);
  PickleBuilder& str(std::string_view text);
  PickleBuilder& integer(std::int64_t value);
  PickleBuilder& ints(const std::vector<std::int64_t>& values);  // a tuple
  // _rebuild_tensor_v2(persistent storage, offset, shape, stride, False, OrderedDict()).
  PickleBuilder& tensor(std::string_view storage_class, std::string_view key, std::int64_t numel,
                        std::int64_t offset, const std::vector<std::int64_t>& shape,
                        const std::vector<std::int64_t>& stride);
  PickleBuilder& stop() { return op('.'); }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

// A legacy checkpoint: header pickles, `object` (a whole pickle), the key
// list, then each storage's 8-byte element count (`counts`) and bytes.
struct LegacyStorage {
  std::string key;
  std::uint64_t count = 0;
  std::string bytes;
};
void write_legacy_checkpoint(const std::filesystem::path& path, const std::string& object,
                             const std::vector<LegacyStorage>& storages);

// A pickle as text, as torch_peer.py's render() writes it.
std::string render_pickle(const importers::Pickle& pickle);
importers::Pickle parse_pickle(std::string_view bytes, const std::string& where = "test.pkl");

}  // namespace parity::test
