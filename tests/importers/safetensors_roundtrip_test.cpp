#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "parity/core/error.hpp"
#include "parity/importers/safetensors.hpp"
#include "file_size_limit.hpp"
#include "safetensors_fixture.hpp"
#include "temp_dir.hpp"

using parity::DType;
using parity::importers::NamedTensor;
using parity::importers::SafetensorsFile;
using parity::importers::write_safetensors;

namespace {

constexpr DType kAllDTypes[] = {DType::kFloat64, DType::kFloat32, DType::kFloat16, DType::kBFloat16,
                                DType::kInt64,   DType::kInt32,   DType::kInt16,   DType::kInt8,
                                DType::kUInt8,   DType::kBool};

NamedTensor random_tensor(std::string name, DType dtype, std::vector<std::int64_t> shape,
                          std::mt19937& rng) {
  NamedTensor tensor{std::move(name), dtype, std::move(shape), {}};
  tensor.data.resize(static_cast<std::size_t>(tensor.expected_byte_size()));
  for (auto& byte : tensor.data)
    byte = static_cast<std::byte>(dtype == DType::kBool ? rng() % 2 : rng() % 256);
  return tensor;
}

std::uint64_t header_length(const std::string& bytes) {
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i)
    n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  return n;
}

}  // namespace

TEST_CASE("every dtype round-trips, with scalars and empty tensors", "[unit]") {
  TempDir dir;
  std::mt19937 rng(7);
  std::vector<NamedTensor> tensors;
  for (const DType dtype : kAllDTypes) {
    const std::string name(parity::dtype_name(dtype));
    tensors.push_back(random_tensor(name + ".matrix", dtype, {3, 5}, rng));
    tensors.push_back(random_tensor(name + ".scalar", dtype, {}, rng));
    tensors.push_back(random_tensor(name + ".empty", dtype, {0}, rng));
    tensors.push_back(random_tensor(name + ".empty3d", dtype, {2, 0, 4}, rng));
    tensors.push_back(random_tensor(name + ".odd", dtype, {1, 3, 1}, rng));
  }
  std::shuffle(tensors.begin(), tensors.end(), rng);
  const std::map<std::string, std::string> metadata{
      {"format", "pt"}, {"note", "naïve ✓ 测试 \"quoted\"\n"}, {"empty", ""}};
  write_safetensors(dir / "all.safetensors", tensors, metadata);

  const auto file = SafetensorsFile::open(dir / "all.safetensors");
  CHECK(file.metadata() == metadata);
  REQUIRE(file.tensors().size() == tensors.size());
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    INFO(tensors[i].name);
    const auto& info = file.tensors()[i];
    CHECK(info.name == tensors[i].name);  // header order is the order given
    CHECK(info.dtype == tensors[i].dtype);
    CHECK(info.shape == tensors[i].shape);
    // every tensor starts at a multiple of its element size in the file
    CHECK((file.data_offset() + info.begin) % parity::dtype_size(info.dtype) == 0);
    const NamedTensor back = file.read(tensors[i].name);
    CHECK(back.name == tensors[i].name);
    CHECK(back.dtype == tensors[i].dtype);
    CHECK(back.shape == tensors[i].shape);
    CHECK(back.data == tensors[i].data);
  }
  const auto bytes = parity::test::read_bytes(dir / "all.safetensors");
  CHECK(header_length(bytes) % 8 == 0);
  CHECK(file.data_offset() == 8 + header_length(bytes));
  CHECK(file.read_all().size() == tensors.size());
}

TEST_CASE("files with no tensors and no metadata are valid", "[unit]") {
  TempDir dir;
  write_safetensors(dir / "empty.safetensors", {});
  const auto bytes = parity::test::read_bytes(dir / "empty.safetensors");
  CHECK(bytes.size() == 16);  // length + "{}" padded to 8
  CHECK(bytes.substr(8) == "{}      ");
  const auto file = SafetensorsFile::open(dir / "empty.safetensors");
  CHECK(file.tensors().empty());
  CHECK(file.metadata().empty());
  CHECK_FALSE(file.contains("x"));
}

TEST_CASE("the header is the JSON the format specifies", "[unit]") {
  TempDir dir;
  const std::vector<NamedTensor> tensors{
      parity::test::pattern_tensor("bn1.num_batches_tracked", DType::kInt64, {}),
      parity::test::pattern_tensor("conv1.weight", DType::kFloat16, {2, 3}),
      parity::test::pattern_tensor("fc.bias", DType::kFloat32, {3})};
  write_safetensors(dir / "m.safetensors", tensors, {{"format", "pt"}});
  const auto bytes = parity::test::read_bytes(dir / "m.safetensors");
  const auto header = nlohmann::json::parse(bytes.substr(8, header_length(bytes)));
  CHECK(header["__metadata__"] == nlohmann::json{{"format", "pt"}});
  CHECK(header["bn1.num_batches_tracked"] == nlohmann::json{{"dtype", "I64"},
                                                            {"shape", nlohmann::json::array()},
                                                            {"data_offsets", {0, 8}}});
  // by decreasing element size: I64, F32, then F16
  CHECK(header["fc.bias"]["data_offsets"] == nlohmann::json{8, 20});
  CHECK(header["conv1.weight"] ==
        nlohmann::json{{"dtype", "F16"}, {"shape", {2, 3}}, {"data_offsets", {20, 32}}});
  CHECK(bytes.size() == 8 + header_length(bytes) + 32);
}

TEST_CASE("the writer refuses what it cannot write and leaves no file", "[unit]") {
  TempDir dir;
  const auto good = parity::test::pattern_tensor("a", DType::kFloat32, {2});
  NamedTensor short_data = good;
  short_data.data.pop_back();
  CHECK_THROWS_WITH(write_safetensors(dir / "x.safetensors", std::vector{good, short_data}),
                    Catch::Contains("needs 8"));
  CHECK_THROWS_WITH(write_safetensors(dir / "x.safetensors", std::vector{good, good}),
                    Catch::Contains("two tensors are named 'a'"));
  NamedTensor reserved = good;
  reserved.name = "__metadata__";
  CHECK_THROWS_WITH(write_safetensors(dir / "x.safetensors", std::vector{reserved}),
                    Catch::Contains("__metadata__"));
  NamedTensor latin1 = good;
  latin1.name = "caf\xe9";
  CHECK_THROWS_WITH(write_safetensors(dir / "x.safetensors", std::vector{latin1}),
                    Catch::Contains("not valid UTF-8"));
  CHECK_THROWS_WITH(write_safetensors(dir / "x.safetensors", std::vector{good}, {{"k", "\xff"}}),
                    Catch::Contains("not valid UTF-8"));
  CHECK_FALSE(std::filesystem::exists(dir / "x.safetensors"));
  CHECK_THROWS_WITH(write_safetensors(dir / "missing" / "x.safetensors", std::vector{good}),
                    Catch::Contains("cannot create"));
}

TEST_CASE("a failed write removes the partial file", "[unit]") {
  TempDir dir;
  const auto big = parity::test::pattern_tensor("big", DType::kFloat32, {4096});
  {
    FileSizeLimit limit(4096);
    CHECK_THROWS_WITH(write_safetensors(dir / "x.safetensors", std::vector{big}),
                      Catch::Contains("cannot write safetensors file"));
  }
  CHECK_FALSE(std::filesystem::exists(dir / "x.safetensors"));
}

TEST_CASE("reading one tensor reads only its bytes", "[unit]") {
  // A 2 GiB file whose big tensor is a hole (sparse): opening it and reading
  // the small tensor must neither take long nor grow the process by gigabytes.
  TempDir dir;
  const auto path = dir / "sparse.safetensors";
  constexpr std::uint64_t kBigBytes = std::uint64_t{2} << 30;
  const std::string header = R"({"small":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},)"
                             R"("big":{"dtype":"U8","shape":[)" +
                             std::to_string(kBigBytes) + R"(],"data_offsets":[16,)" +
                             std::to_string(16 + kBigBytes) + "]}}";
  const auto small = parity::test::pattern_tensor("small", DType::kFloat32, {4});
  parity::test::write_raw_safetensors(
      path, header,
      std::string_view(reinterpret_cast<const char*>(small.data.data()), small.data.size()));
  REQUIRE(::truncate(path.c_str(), static_cast<off_t>(8 + header.size() + 16 + kBigBytes)) == 0);

  rusage before{};
  getrusage(RUSAGE_SELF, &before);
  const auto file = SafetensorsFile::open(path);
  REQUIRE(file.find("big") != nullptr);
  CHECK(file.find("big")->byte_size() == kBigBytes);
  CHECK(file.read("small").data == small.data);
  rusage after{};
  getrusage(RUSAGE_SELF, &after);
  CHECK(after.ru_maxrss - before.ru_maxrss < 64 * 1024);  // KiB
}

TEST_CASE("one file serves reads from several threads", "[unit]") {
  TempDir dir;
  std::vector<NamedTensor> tensors;
  for (int i = 0; i < 16; ++i)
    tensors.push_back(
        parity::test::pattern_tensor("t" + std::to_string(i), DType::kFloat32, {64, i + 1}));
  write_safetensors(dir / "m.safetensors", tensors);
  const auto file = SafetensorsFile::open(dir / "m.safetensors");
  std::vector<int> ok(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round)
        for (const auto& tensor : tensors)
          if (file.read(tensor.name).data == tensor.data) ++ok[static_cast<std::size_t>(t)];
    });
  for (auto& thread : threads) thread.join();
  for (const int count : ok) CHECK(count == 20 * 16);

  std::vector<std::byte> buffer(64 * 3 * 4);
  file.read_into("t2", buffer);
  CHECK(buffer == tensors[2].data);
  std::vector<std::byte> wrong(5);
  CHECK_THROWS_WITH(file.read_into("t2", wrong), Catch::Contains("destination holds 5 bytes"));
}

TEST_CASE("dtype codes map both ways", "[unit]") {
  for (const DType dtype : kAllDTypes)
    CHECK(parity::importers::parse_safetensors_dtype(
              parity::importers::safetensors_dtype_code(dtype)) == dtype);
  CHECK(parity::importers::safetensors_dtype_code(DType::kBFloat16) == "BF16");
  CHECK(parity::importers::safetensors_dtype_code(DType::kBool) == "BOOL");
  CHECK_FALSE(parity::importers::parse_safetensors_dtype("U32"));
  CHECK_FALSE(parity::importers::parse_safetensors_dtype("f32"));
}
