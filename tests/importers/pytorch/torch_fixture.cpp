#include "torch_fixture.hpp"

#include <unistd.h>

#include <bit>
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "process.hpp"

namespace parity::test {
namespace {

using importers::NamedTensor;
using importers::Pickle;
using importers::PickleId;
using importers::PickleKind;

std::string hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    out += kDigits[byte >> 4];
    out += kDigits[byte & 15];
  }
  return out;
}

std::string render(const Pickle& pickle, PickleId id, int depth) {
  REQUIRE(depth < 64);
  const importers::PickleValue& value = pickle[id];
  const auto join = [&](const std::vector<PickleId>& items) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i)
      out += (i ? "," : "") + render(pickle, items[i], depth + 1);
    return out;
  };
  switch (value.kind) {
    case PickleKind::kNone:
      return "None";
    case PickleKind::kBool:
      return value.boolean ? "True" : "False";
    case PickleKind::kInt:
      return std::to_string(value.integer);
    case PickleKind::kFloat: {
      const auto bits = std::bit_cast<std::uint64_t>(value.real);
      char text[20];
      std::snprintf(text, sizeof text, "f%016llx", static_cast<unsigned long long>(bits));
      return text;
    }
    case PickleKind::kStr:
      return "s" + hex(value.text);
    case PickleKind::kBytes:
      return "b" + hex(value.text);
    case PickleKind::kTuple:
      return "(" + join(value.items) + ")";
    case PickleKind::kList:
      return "[" + join(value.items) + "]";
    case PickleKind::kSet:
      return "{" + join(value.items) + "}";
    case PickleKind::kDict: {
      std::string out;
      for (std::size_t i = 0; i < value.entries.size(); ++i)
        out += (i ? "," : "") + render(pickle, value.entries[i].first, depth + 1) + ":" +
               render(pickle, value.entries[i].second, depth + 1);
      return "{" + out + "}";
    }
    default:
      return "<" + std::string(importers::pickle_kind_name(value.kind)) + ">";
  }
}

// The peer's files are made once per build folder and version of the peer
// script, not once per test process (ctest runs each case in its own): into
// a staging folder renamed into place, so that concurrent tests never see a
// half-written set.
std::filesystem::path make_peer_files() {
  namespace fs = std::filesystem;
  const std::string script = read_file(PARITY_TORCH_PEER);
  char version[20];
  std::snprintf(version, sizeof version, "%016zx", std::hash<std::string>{}(script));
  const fs::path dir = fs::path(PARITY_TORCH_PEER_CACHE) / version;
  if (fs::exists(dir / "complete")) return dir;
  const fs::path staging = dir.string() + ".staging." + std::to_string(::getpid());
  fs::remove_all(staging);
  fs::create_directories(staging);
  const ProcessResult result = run_process(
      {PARITY_PYTHON, PARITY_TORCH_PEER, staging.string(), torch_attack_marker().string()});
  INFO(result.out << result.err);
  REQUIRE(result.exit_code == 0);
  write_file(staging / "complete", "");
  std::error_code error;
  fs::rename(staging, dir, error);
  if (error) fs::remove_all(staging);  // another process finished first
  return dir;
}

void append_le(std::string& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

}  // namespace

const std::filesystem::path& torch_peer_dir() {
  static const std::filesystem::path dir = make_peer_files();
  return dir;
}

std::filesystem::path torch_attack_marker() {
  return std::filesystem::temp_directory_path() / "parity_pytorch_attack_ran";
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_file(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
}

std::vector<NamedTensor> torch_reference(const std::string& name) {
  return torch_reference(name, torch_peer_dir());
}

std::vector<NamedTensor> torch_reference(const std::string& name,
                                         const std::filesystem::path& dir) {
  const auto manifest = nlohmann::json::parse(read_file(dir / (name + ".ref.json")));
  const std::string blob = read_file(dir / (name + ".ref.bin"));
  std::vector<NamedTensor> tensors;
  for (const auto& entry : manifest) {
    NamedTensor tensor;
    tensor.name = entry.at("name").get<std::string>();
    tensor.dtype = *parse_dtype(entry.at("dtype").get<std::string>());
    tensor.shape = entry.at("shape").get<std::vector<std::int64_t>>();
    const auto bytes = std::string_view(blob).substr(entry.at("offset").get<std::size_t>(),
                                                     entry.at("size").get<std::size_t>());
    tensor.data.resize(bytes.size());
    std::memcpy(tensor.data.data(), bytes.data(), bytes.size());
    tensors.push_back(std::move(tensor));
  }
  return tensors;
}

void check_against_reference(const importers::TensorSource& source, const std::string& name) {
  const auto reference = torch_reference(name);
  REQUIRE(source.entries().size() == reference.size());
  for (std::size_t i = 0; i < reference.size(); ++i) {
    const NamedTensor& expected = reference[i];
    INFO(source.path().filename().string() << ": tensor " << expected.name);
    const importers::TensorEntry& entry = source.entries()[i];
    CHECK(entry.name == expected.name);
    CHECK(entry.dtype == expected.dtype);
    CHECK(entry.shape == expected.shape);
    const NamedTensor tensor = source.read(expected.name);
    CHECK(tensor.dtype == expected.dtype);
    CHECK(tensor.shape == expected.shape);
    CHECK(tensor.data == expected.data);
  }
}

PickleBuilder& PickleBuilder::proto(int version) {
  bytes_ += '\x80';
  bytes_ += static_cast<char>(version);
  return *this;
}

PickleBuilder& PickleBuilder::raw(std::string_view bytes) {
  bytes_ += bytes;
  return *this;
}

PickleBuilder& PickleBuilder::op(char opcode) {
  bytes_ += opcode;
  return *this;
}

PickleBuilder& PickleBuilder::global(std::string_view module, std::string_view name) {
  bytes_ += 'c';
  bytes_ += module;
  bytes_ += '\n';
  bytes_ += name;
  bytes_ += '\n';
  return *this;
}

PickleBuilder& PickleBuilder::str(std::string_view text) {
  bytes_ += 'X';
  append_le(bytes_, text.size(), 4);
  bytes_ += text;
  return *this;
}

PickleBuilder& PickleBuilder::integer(std::int64_t value) {
  bytes_ += '\x8a';  // LONG1 with 8 bytes holds any int64
  bytes_ += '\x08';
  append_le(bytes_, static_cast<std::uint64_t>(value), 8);
  return *this;
}

PickleBuilder& PickleBuilder::ints(const std::vector<std::int64_t>& values) {
  mark();
  for (const std::int64_t value : values) integer(value);
  return op('t');
}

PickleBuilder& PickleBuilder::tensor(std::string_view storage_class, std::string_view key,
                                     std::int64_t numel, std::int64_t offset,
                                     const std::vector<std::int64_t>& shape,
                                     const std::vector<std::int64_t>& stride) {
  global("torch._utils", "_rebuild_tensor_v2").mark();
  mark().str("storage").global("torch", storage_class).str(key).str("cpu").integer(numel);
  op('t').op('Q');
  integer(offset).ints(shape).ints(stride).op('\x89');
  global("collections", "OrderedDict").op(')').op('R');
  return op('t').op('R');
}

void write_legacy_checkpoint(const std::filesystem::path& path, const std::string& object,
                             const std::vector<LegacyStorage>& storages) {
  std::string file;
  // Magic number (LONG1, 10 bytes), protocol version 1001, an empty system info dict.
  file += PickleBuilder()
              .proto(2)
              .raw("\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19")
              .stop()
              .bytes();
  file += PickleBuilder().proto(2).integer(1001).stop().bytes();
  file += PickleBuilder().proto(2).op('}').stop().bytes();
  file += object;
  PickleBuilder keys;
  keys.proto(2).mark();
  for (const LegacyStorage& storage : storages) keys.str(storage.key);
  file += keys.op('l').stop().bytes();
  for (const LegacyStorage& storage : storages) {
    append_le(file, storage.count, 8);
    file += storage.bytes;
  }
  write_file(path, file);
}

std::string render_pickle(const Pickle& pickle) { return render(pickle, pickle.root, 0); }

Pickle parse_pickle(std::string_view bytes, const std::string& where) {
  importers::PickleBytesInput input(std::as_bytes(std::span(bytes.data(), bytes.size())));
  return importers::read_pickle(input, where);
}

}  // namespace parity::test
